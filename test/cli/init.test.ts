/**
 * `agentforge init server|config`: the scaffolded server really runs and our client lists and calls its tool,
 * over stdio (through the mcp.json written beside it) and over Streamable HTTP; nothing is overwritten.
 * The scaffold imports `agentforge/server`, so the project gets agentforge as an installed package would be:
 * node_modules/agentforge pointing at this checkout (the README test covers a real `npm pack` install).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readUrl } from '../../src/cli/demo.js';
import { ROOT } from '../agent/support.js';
import { cli } from './support.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-init-'));
  await mkdir(join(dir, 'node_modules'));
  await symlink(ROOT, join(dir, 'node_modules', 'agentforge'), 'dir');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentforge init server', () => {
  it('writes server.mjs and an mcp.json that tools list and tools call use', async () => {
    const init = await cli(['init', 'server', 'greeter'], { cwd: dir });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(
      `wrote ${join(dir, 'greeter', 'server.mjs')} and ${join(dir, 'greeter', 'mcp.json')}`,
    );
    const config = JSON.parse(await readFile(join(dir, 'greeter', 'mcp.json'), 'utf8'));
    expect(config).toEqual({ mcpServers: { greeter: { command: 'node', args: ['./server.mjs'] } } });
    // From another directory: "./server.mjs" resolves against the mcp.json.
    const listed = await cli(['tools', 'list', '--config', join(dir, 'greeter', 'mcp.json')], { cwd: ROOT });
    expect(listed).toMatchObject({
      code: 0,
      stdout: 'greeter__greet\tgreeter/greet\tGreet someone by name\n',
    });
    const called = await cli(
      [
        'tools',
        'call',
        'greeter__greet',
        '--args',
        '{"name":"Ada"}',
        '--config',
        join(dir, 'greeter', 'mcp.json'),
      ],
      { cwd: ROOT },
    );
    expect(called).toEqual({ code: 0, stdout: 'Hello, Ada!\n', stderr: '' });
  });

  it('--http: the server serves Streamable HTTP and our client lists its tool by URL', async () => {
    expect((await cli(['init', 'server', 'web', '--http'], { cwd: dir })).code).toBe(0);
    const child = spawn(process.execPath, ['server.mjs', '--http', '--port', '0'], {
      cwd: join(dir, 'web'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await readUrl(child, 'web/server.mjs');
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const config = join(dir, 'web-http.json');
      await writeFile(config, JSON.stringify({ mcpServers: { web: { url } } }));
      const listed = await cli(['tools', 'list', '--config', config]);
      expect(listed).toMatchObject({ code: 0, stdout: 'web__greet\tweb/greet\tGreet someone by name\n' });
      const stdio = await cli([
        'tools',
        'call',
        'web__greet',
        '--args',
        '{"name":"Bo"}',
        '--config',
        join(dir, 'web', 'mcp.json'),
      ]);
      expect(stdio.stdout).toBe('Hello, Bo!\n');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('never overwrites: a second init fails naming the file and leaves it as it was', async () => {
    const target = join(dir, 'twice');
    expect((await cli(['init', 'server', target])).code).toBe(0);
    await writeFile(join(target, 'server.mjs'), '// mine\n');
    const again = await cli(['init', 'server', target]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `agentforge: ${join(target, 'server.mjs')} already exists; init never overwrites a file\n`,
    );
    expect(await readFile(join(target, 'server.mjs'), 'utf8')).toBe('// mine\n');
  });
});

describe('agentforge init config', () => {
  it('writes an mcp.json for the ./server.mjs beside it, or the reference server; never overwriting', async () => {
    const withServer = join(dir, 'cfg');
    await mkdir(withServer);
    await writeFile(join(withServer, 'server.mjs'), '');
    expect((await cli(['init', 'config', withServer])).code).toBe(0);
    expect(JSON.parse(await readFile(join(withServer, 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { cfg: { command: 'node', args: ['./server.mjs'] } },
    });
    const again = await cli(['init', 'config', withServer]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists; init never overwrites a file');
    const bare = join(dir, 'bare');
    expect((await cli(['init', 'config', bare])).code).toBe(0);
    expect(JSON.parse(await readFile(join(bare, 'mcp.json'), 'utf8')).mcpServers).toEqual({
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
    });
  });
});
