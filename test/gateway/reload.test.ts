/**
 * Config reload without dropping connections: the gateway's `reload` (servers added and removed, a new group,
 * a policy) with callers connected in both eras, and `agentforge gateway` reloading when its file changes and
 * on SIGHUP.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/agent/config.js';
import { readUrl } from '../../src/cli/demo.js';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { MAIN, cleanEnv } from '../cli/support.js';
import { eventually, lab, startGateway, textOf } from './support.js';

const names = async (client: McpClient) => (await client.listTools()).map((tool) => tool.name);

describe('Gateway.reload', () => {
  it('adds and removes servers, a group and a policy while callers stay connected', async () => {
    await using running = await startGateway({ alpha: lab('alpha') }, { dynamicPolicies: true });
    const callers = await Promise.all(
      ['2025-11-25', '2026-07-28'].map((protocolVersion) => running.connect({ protocolVersion })),
    );
    const heard = callers.map(() => 0);
    for (const [i, client] of callers.entries()) {
      client.on('toolsListChanged', () => {
        heard[i]!++;
      });
    }
    await Promise.all(callers.map((client) => client.listChangesReady()));
    const alphaPid = (running.gateway.host.client('alpha') as McpClient).pid;

    const config = parseConfig(
      { mcpServers: { alpha: lab('alpha'), beta: lab('beta', { group: 'lab' }) } },
      { source: 'reloaded mcp.json' },
    );
    await running.gateway.reload(config, {
      policies: [{ principals: ['anonymous'], tools: { deny: ['alpha__crash'] } }],
    });
    for (const [i, client] of callers.entries()) {
      await eventually(() => heard[i]! > 0 || undefined);
      const listed = await names(client);
      expect(listed).toContain('beta__search');
      expect(listed).not.toContain('alpha__crash');
      expect(textOf(await client.callTool({ name: 'beta__search', arguments: { query: 'new' } }))).toBe(
        'beta found: new',
      );
      const refused = await client.callTool({ name: 'alpha__crash', arguments: {} }).catch((e: Error) => e);
      expect((refused as Error).message).toBe('not allowed to call tool alpha__crash');
    }
    // The server the new config kept as it was is the same process: nothing was reconnected.
    expect((running.gateway.host.client('alpha') as McpClient).pid).toBe(alphaPid);
    const group = await running.connect({}, running.listening.urlOf('lab'));
    expect(await names(group)).toEqual(expect.arrayContaining(['beta__search']));

    await running.gateway.reload(parseConfig({ mcpServers: { alpha: lab('alpha') } }));
    for (const client of callers) {
      await eventually(async () => !(await names(client)).includes('beta__search') || undefined);
      expect(textOf(await client.callTool({ name: 'alpha__search', arguments: { query: 'still' } }))).toBe(
        'alpha found: still',
      );
    }
  }, 60_000);
});

describe('agentforge gateway', () => {
  it('reloads when its config file changes, keeping its callers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-gateway-reload-'));
    const path = join(dir, 'mcp.json');
    await writeFile(path, JSON.stringify({ mcpServers: { alpha: lab('alpha') } }));
    const child = spawn(process.execPath, [MAIN, 'gateway', '--config', path, '--port', '0'], {
      env: cleanEnv({ AGENTFORGE_LOG_DIR: dir }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    try {
      const url = await readUrl(child, 'agentforge gateway', 30_000);
      const client = await McpClient.connect(url, { eraCache: new EraCache() });
      expect(await names(client)).not.toContain('beta__search');
      await writeFile(path, JSON.stringify({ mcpServers: { alpha: lab('alpha'), beta: lab('beta') } }));
      await eventually(async () => (await names(client)).includes('beta__search') || undefined, 30_000);
      // The list changes before the reload reports itself.
      await eventually(() => stderr.includes(`config reloaded from ${path}`) || undefined);
      // A broken file is reported and the running config kept.
      await writeFile(path, '{ not json');
      await eventually(() => stderr.includes('config not reloaded') || undefined);
      expect(textOf(await client.callTool({ name: 'beta__search', arguments: { query: 'kept' } }))).toBe(
        'beta found: kept',
      );
      await client.close();
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('agentforge gateway on SIGHUP', () => {
  it('reloads its config and keeps the process and its sessions up', async () => {
    // The config behind a symlink, as a Kubernetes ConfigMap mounts it: editing the target is not seen by the
    // watch of the link's directory, so only SIGHUP tells the gateway.
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-gateway-hup-'));
    await mkdir(join(dir, 'data'));
    const target = join(dir, 'data', 'mcp.json');
    const path = join(dir, 'mcp.json');
    await writeFile(target, JSON.stringify({ mcpServers: { alpha: lab('alpha') } }));
    await symlink(target, path);
    const child = spawn(process.execPath, [MAIN, 'gateway', '--config', path, '--port', '0'], {
      env: cleanEnv({ AGENTFORGE_LOG_DIR: dir }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    try {
      const url = await readUrl(child, 'agentforge gateway', 30_000);
      // A 2025-11-25 caller holds a session (Mcp-Session-Id): it hears the change on that session.
      const session = await McpClient.connect(url, {
        eraCache: new EraCache(),
        protocolVersion: '2025-11-25',
      });
      const modern = await McpClient.connect(url, { eraCache: new EraCache() });
      let heard = 0;
      session.on('toolsListChanged', () => heard++);
      expect(await names(session)).not.toContain('beta__search');
      await writeFile(target, JSON.stringify({ mcpServers: { alpha: lab('alpha'), beta: lab('beta') } }));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await names(session)).not.toContain('beta__search');

      child.kill('SIGHUP');
      await eventually(() => stderr.includes(`config reloaded from ${path}`) || undefined, 30_000);
      await eventually(() => heard > 0 || undefined);
      expect(child.exitCode).toBeNull();
      for (const client of [session, modern]) {
        expect(await names(client)).toContain('beta__search');
        expect(textOf(await client.callTool({ name: 'beta__search', arguments: { query: 'hup' } }))).toBe(
          'beta found: hup',
        );
      }
      expect(stderr).toContain('SIGHUP: reloading');
      expect(stderr).not.toContain('shutting the servers down');
      await Promise.all([session.close(), modern.close()]);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
