#!/usr/bin/env node
// Runs the official conformance suite's server scenarios against build/conformance/server-fixture.js over
// Streamable HTTP: both requirement sets (2026-07-28 and 2025-11-25) with the expected-failures baseline, then
// every unscored scenario of each set on its own (header validation, json-schema-2020-12, SSE polling, session
// lifecycle), since unscored results do not move the suite's exit code; then the extension scenarios, pending in
// the suite and so run by name: the ten tasks-* (SEP-2663) and the sep-2640-skills-* (SEP-2640) ones, on
// 2026-07-28. Exits non-zero on any unexpected failure (a FAILURE or WARNING check). Build first.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, root, runServerSuite, waitForServer } from './conformance-suite.mjs';

const fixture = join(root, 'build', 'conformance', 'server-fixture.js');

if (!existsSync(fixture)) {
  console.error('build/conformance/server-fixture.js is missing: run `npm run build` first');
  process.exit(2);
}

const port = Number(process.env.PORT) || (await freePort());
const url = `http://127.0.0.1:${port}/mcp`;
const child = spawn(process.execPath, [fixture], {
  cwd: root,
  env: { ...process.env, PORT: String(port) },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const stop = () => {
  if (child.exitCode === null) child.kill('SIGTERM');
};
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});

let failures = [];
try {
  await waitForServer(url, child);
  failures = runServerSuite(url);
} catch (error) {
  failures.push(`harness: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  stop();
}

if (failures.length > 0) {
  console.error(`\nUnexpected server conformance failures:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('\nAll server scenarios passed in both requirement sets, and every extension scenario.');
