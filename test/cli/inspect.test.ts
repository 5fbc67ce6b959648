/** `resources list|read` and `prompts list|get` against the lab server over stdio, beside `tools`. */
import { defaultServerLogDir } from '../../src/agent/server-logs.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB, WEATHER } from '../agent/support.js';
import { cli } from './support.js';

/** Where the CLI keeps a server's stderr (the user's state dir: these tests set no AGENTFORGE_LOG_DIR). */
const logOf = (server: string) => join(defaultServerLogDir(), `mcp-server-${server}.log`);

let dir: string;
let config: string;
let withBroken: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-inspect-'));
  config = join(dir, 'mcp.json');
  const servers = {
    lab: { command: process.execPath, args: [LAB, 'lab'] },
    weather: { command: process.execPath, args: [WEATHER] },
  };
  await writeFile(config, JSON.stringify({ mcpServers: servers }));
  withBroken = join(dir, 'broken.json');
  const down = { command: process.execPath, args: ['-e', 'process.exit(7)'] };
  await writeFile(withBroken, JSON.stringify({ mcpServers: { ...servers, down } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentforge resources', () => {
  it('list prints server, URI, name, MIME type and description', async () => {
    const { code, stdout, stderr } = await cli(['resources', 'list', '--config', config]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe("lab\tlab://notes/today\ttoday\ttext/plain\tToday's notes\n");
  });

  it('list --json carries the resources with their server', async () => {
    const { code, stdout } = await cli(['resources', 'list', '--config', config, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).resources).toEqual([
      {
        server: 'lab',
        resource: {
          uri: 'lab://notes/today',
          name: 'today',
          description: "Today's notes",
          mimeType: 'text/plain',
        },
      },
    ]);
  });

  it('read finds the server that lists the URI and prints the text', async () => {
    expect(await cli(['resources', 'read', 'lab://notes/today', '--config', config])).toEqual({
      code: 0,
      stdout: 'lab notes\n',
      stderr: '',
    });
    const json = await cli(['resources', 'read', 'lab://notes/today', '--config', config, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      contents: [{ uri: 'lab://notes/today', mimeType: 'text/plain', text: 'lab notes' }],
    });
  });

  it('read of an unknown URI, or from an unknown server, is one clear line', async () => {
    const unknown = await cli(['resources', 'read', 'lab://notes/todya', '--config', config]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'agentforge: no server lists lab://notes/todya; did you mean "lab://notes/today"?; ' +
        'pass --server <name> for a templated URI\n',
    );
    const server = await cli(['resources', 'read', 'lab://x', '--server', 'lb', '--config', config]);
    expect(server.code).toBe(2);
    expect(server.stderr).toContain('agentforge: no server named "lb"; did you mean "lab"?\n');
    const rejected = await cli(['resources', 'read', 'lab://nothing', '--server', 'lab', '--config', config]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(
      /^agentforge: server "lab" rejected resources\/read lab:\/\/nothing: .+\n$/,
    );
  });

  it('a server that did not connect: what the others have is listed, and it is named (exit 1)', async () => {
    const { code, stdout, stderr } = await cli(['resources', 'list', '--config', withBroken]);
    expect(stdout).toContain('lab://notes/today');
    expect(stderr).toBe(
      `agentforge: server "down" failed to connect (exited with code 7); its stderr is in ${logOf('down')}; its resources are not listed\n`,
    );
    expect(code).toBe(1);
  });
});

describe('agentforge prompts', () => {
  it('list prints server, name, arguments (* = required) and description', async () => {
    const { code, stdout, stderr } = await cli(['prompts', 'list', '--config', config]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe('lab\tsummarise\ttopic*\tSummarise a topic\n');
  });

  it('get renders the messages; --json the result', async () => {
    const args = ['prompts', 'get', 'summarise', '--config', config, '--args', '{"topic":"MCP"}'];
    expect(await cli(args)).toEqual({ code: 0, stdout: '[user] Summarise MCP\n', stderr: '' });
    const json = await cli([...args, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise MCP' } }],
    });
  });

  it('get of a mistyped prompt suggests the real one; non-string arguments are a usage error', async () => {
    const typo = await cli(['prompts', 'get', 'sumarise', '--config', config]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      'agentforge: no prompt named "sumarise"; did you mean "summarise"?; see agentforge prompts list\n',
    );
    const bad = await cli(['prompts', 'get', 'summarise', '--config', config, '--args', '{"topic":1}']);
    // One comparison, so a failure shows the process's stderr beside its exit code.
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('agentforge: --args: prompt argument "topic" must be a string\n'),
    });
  });

  it('list names a server that did not connect (exit 1)', async () => {
    const { code, stdout, stderr } = await cli(['prompts', 'list', '--config', withBroken]);
    expect(stdout).toContain('summarise');
    expect(stderr).toBe(
      `agentforge: server "down" failed to connect (exited with code 7); its stderr is in ${logOf('down')}; its prompts are not listed\n`,
    );
    expect(code).toBe(1);
  });
});
