#!/usr/bin/env node
// Runs the official conformance suite's server scenarios through the gateway: `agentforge gateway` (dist/cli)
// with build/conformance/server-fixture.js as its only upstream (spawned on stdio), served without the name
// prefix (`gateway.prefix: false`: the suite calls the fixture's tools by their own names). Both requirement
// sets, every unscored scenario and the extension scenarios (tasks relayed to the upstream, skills served as
// its resources) must pass as they do against the fixture directly. Build first.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, root, runServerSuite, waitForServer } from './conformance-suite.mjs';

const fixture = join(root, 'build', 'conformance', 'server-fixture.js');
const cli = join(root, 'dist', 'cli', 'main.js');
for (const file of [fixture, cli]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`npm run build\` first`);
    process.exit(2);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agentforge-conformance-gateway-'));
const config = join(dir, 'mcp.json');
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: { fixture: { command: process.execPath, args: [fixture, '--stdio'], cwd: root } },
    gateway: { prefix: false },
  }),
);
const port = Number(process.env.PORT) || (await freePort());
const url = `http://127.0.0.1:${port}/mcp`;
const started = Date.now();
const gateway = spawn(process.execPath, [cli, 'gateway', '--config', config, '--port', String(port)], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, AGENTFORGE_LOG_DIR: dir },
});
const stop = () => {
  if (gateway.exitCode === null) gateway.kill('SIGTERM');
};
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});

let failures = [];
try {
  await waitForServer(url, gateway);
  failures = runServerSuite(url);
} catch (error) {
  failures.push(`harness: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  stop();
  await new Promise((resolve) => (gateway.exitCode === null ? gateway.once('exit', resolve) : resolve()));
  rmSync(dir, { recursive: true, force: true });
}

const seconds = Math.round((Date.now() - started) / 1000);
if (failures.length > 0) {
  console.error(`\nUnexpected failures through the gateway (${seconds} s):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `\nAll server scenarios passed through the gateway in both requirement sets, and every extension scenario (${seconds} s).`,
);
