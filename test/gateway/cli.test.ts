/**
 * `agentforge gateway` as a user runs it (the built binary): over HTTP with the gateway section of mcp.json
 * (policies, required servers), /healthz and /readyz, SIGTERM ending every process; over stdio as a server an
 * MCP host spawns; and config errors named by key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { readUrl } from '../../src/cli/demo.js';
import { MAIN, cleanEnv, cli, expectNoStack } from '../cli/support.js';
import { lab, textOf } from './support.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-gateway-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeConfig(name: string, json: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(json));
  return path;
}

function start(args: string[]): ChildProcess {
  return spawn(process.execPath, [MAIN, 'gateway', ...args], {
    env: cleanEnv({ AGENTFORGE_LOG_DIR: dir }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('agentforge gateway over HTTP', () => {
  it('serves the config, reports readiness, applies the policy section, and stops on SIGTERM', async () => {
    const config = await writeConfig('http.json', {
      mcpServers: { alpha: lab('alpha'), beta: lab('beta', { group: 'research' }) },
      gateway: {
        required: ['alpha'],
        policies: [{ principals: ['anonymous'], tools: { deny: ['*crash'] } }],
      },
    });
    const child = start(['--config', config, '--port', '0']);
    const url = await readUrl(child, 'agentforge gateway', 30_000);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await McpClient.connect(url, { eraCache: new EraCache() });
    try {
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names).toContain('alpha__search');
      expect(names).not.toContain('alpha__crash');
      expect(textOf(await client.callTool({ name: 'beta__search', arguments: { query: 'cli' } }))).toBe(
        'beta found: cli',
      );
      const origin = new URL(url).origin;
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
      expect((await fetch(`${origin}/readyz`)).status).toBe(200);
      const group = await McpClient.connect(`${origin}/mcp/research`, { eraCache: new EraCache() });
      expect((await group.listTools()).every((tool) => tool.name.startsWith('beta__'))).toBe(true);
      await group.close();
    } finally {
      await client.close();
    }
    const code = await stop(child);
    expect(code).toBe(143);
  }, 60_000);
});

describe('agentforge gateway --stdio', () => {
  it('is an MCP server a host can spawn', async () => {
    const config = await writeConfig('stdio.json', { mcpServers: { alpha: lab('alpha') } });
    const client = await McpClient.connect(
      { command: process.execPath, args: [MAIN, 'gateway', '--stdio', '--config', config], env: cleanEnv() },
      { eraCache: new EraCache() },
    );
    try {
      expect(textOf(await client.callTool({ name: 'alpha__search', arguments: { query: 'pipe' } }))).toBe(
        'alpha found: pipe',
      );
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('agentforge gateway config errors', () => {
  it('names the key of a bad gateway section, without a stack trace', async () => {
    const config = await writeConfig('bad.json', {
      mcpServers: { alpha: lab('alpha') },
      gateway: { required: ['nope'] },
    });
    const ran = await cli(['gateway', '--config', config, '--port', '0']);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('gateway.required');
    expect(ran.stderr).toContain('no server named "nope"');
    expectNoStack(ran.stderr);
  });

  it('refuses prefix: false over several servers', async () => {
    const config = await writeConfig('two.json', {
      mcpServers: { alpha: lab('alpha'), beta: lab('beta') },
      gateway: { prefix: false },
    });
    const ran = await cli(['gateway', '--config', config, '--port', '0']);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/prefix: false serves a single upstream/);
  });
});
