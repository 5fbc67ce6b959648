/**
 * The CLI's own surface: --help/-h on every command and subcommand (generated from the same specs the
 * commands parse with), --version from package.json, "did you mean" for commands, subcommands, flags and tool
 * names, and errors as one line with no stack unless debugging.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_OPTIONS } from '../../src/cli/auth.js';
import { CONFIG_IMPORT_OPTIONS } from '../../src/cli/config.js';
import {
  AUTH_SPEC,
  CHAT_SPEC,
  CONFIG_SPEC,
  type CommandSpec,
  DEMO_SPEC,
  GATEWAY_SPEC,
  INIT_SPEC,
  PROMPTS_SPEC,
  RESOURCES_SPEC,
  RUN_SPEC,
  TOOLS_SPEC,
} from '../../src/cli/help.js';
import { GATEWAY_OPTIONS } from '../../src/cli/gateway.js';
import { INIT_SERVER_OPTIONS } from '../../src/cli/init.js';
import { PROMPTS_OPTIONS } from '../../src/cli/prompts.js';
import { RESOURCES_OPTIONS } from '../../src/cli/resources.js';
import { RUN_OPTIONS } from '../../src/cli/run.js';
import { closest, editDistance } from '../../src/cli/suggest.js';
import { TOOLS_OPTIONS } from '../../src/cli/tools.js';
import { LAB, ROOT, WEATHER } from '../agent/support.js';
import { cli, expectNoStack } from './support.js';

const SPECS = [
  AUTH_SPEC,
  RUN_SPEC,
  CHAT_SPEC,
  TOOLS_SPEC,
  RESOURCES_SPEC,
  PROMPTS_SPEC,
  CONFIG_SPEC,
  INIT_SPEC,
  DEMO_SPEC,
  GATEWAY_SPEC,
];

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-commands-'));
  config = join(dir, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        weather: { command: process.execPath, args: [WEATHER] },
        crashy: { command: process.execPath, args: [LAB, 'crashy'] },
      },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('--help and --version', () => {
  const paths = SPECS.flatMap((spec) => [
    spec.name,
    ...(spec.subcommands ?? []).map((s) => `${spec.name} ${s.name}`),
  ]);

  it.each(paths)("%s --help and -h print that command's usage and options, exit 0", async (path) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await cli([...path.split(' '), flag]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain(`agentforge ${path} — `);
      expect(stdout).toMatch(/^usage:\n {2}agentforge /m);
      expect(stdout).toContain('-h, --help');
    }
  });

  it('--help lists every command and documents the exit codes', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const spec of SPECS) expect(stdout).toContain(`\n  ${spec.name} `);
    expect(stdout).toMatch(/exit codes:\n {2}0 +success\n {2}1 +failure/);
    expect(stdout).toMatch(/^ {2}3 +run: every tool call the model made was denied$/m);
    expect(stdout).toMatch(/^ {2}4 +run: the run hit --max-steps/m);
    expect(stdout).toContain('demo:offline-rules');
  });

  it('--version prints the version in package.json', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V'])
      expect(await cli([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it("each command's help lists exactly the flags its parser accepts", () => {
    const flags = (spec: CommandSpec) =>
      spec.flags
        .map((f) => f.name)
        .filter((n) => n !== 'help')
        .sort();
    const sub = (spec: CommandSpec, name: string) => spec.subcommands!.find((s) => s.name === name)!;
    expect(flags(RUN_SPEC)).toEqual(Object.keys(RUN_OPTIONS).sort());
    const { args: _t, ...listOptions } = TOOLS_OPTIONS;
    expect(flags(sub(TOOLS_SPEC, 'list'))).toEqual(Object.keys(listOptions).sort());
    expect(flags(sub(TOOLS_SPEC, 'call'))).toEqual(Object.keys(TOOLS_OPTIONS).sort());
    expect(flags(sub(RESOURCES_SPEC, 'read'))).toEqual(Object.keys(RESOURCES_OPTIONS).sort());
    expect(flags(sub(PROMPTS_SPEC, 'get'))).toEqual(Object.keys(PROMPTS_OPTIONS).sort());
    expect(flags(sub(CONFIG_SPEC, 'import'))).toEqual(Object.keys(CONFIG_IMPORT_OPTIONS).sort());
    expect(flags(sub(INIT_SPEC, 'server'))).toEqual(Object.keys(INIT_SERVER_OPTIONS).sort());
    expect(flags(sub(AUTH_SPEC, 'login'))).toEqual(Object.keys(AUTH_OPTIONS).sort());
    expect(flags(GATEWAY_SPEC)).toEqual(Object.keys(GATEWAY_OPTIONS).sort());
  });
});

describe('did you mean', () => {
  it('suggests by edit distance, and only when close', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closest('lst', ['list', 'call'])).toBe('list');
    expect(closest('--jsn', ['--json', '--config'])).toBe('--json');
    expect(closest('zebra', ['list', 'call'])).toBeUndefined();
  });

  it('for a command, a subcommand and a flag: one line, exit 2, pointing at the right --help', async () => {
    const command = await cli(['rnu', 'x']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe(
      'agentforge: unknown command "rnu"; did you mean "run"?\nrun "agentforge --help" for usage\n',
    );
    const sub = await cli(['resources', 'raed', 'x://y']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain(
      'agentforge: unknown command "resources raed"; did you mean "resources read"?\n',
    );
    const flag = await cli(['tools', 'list', '--config', config, '--jsn']);
    expect(flag).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'agentforge: unknown option --jsn for "tools list"; did you mean --json?\n' +
        'run "agentforge tools list --help" for usage\n',
    });
  });

  it('for a tool name', async () => {
    const { code, stderr } = await cli(['tools', 'call', 'weather__get_wether', '--config', config]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'agentforge: no tool named "weather__get_wether"; did you mean "weather__get_weather"?; see agentforge tools list\n',
    );
  });
});

describe('errors', () => {
  it('a server that dies during a call: one line naming the server, the request and the exit code', async () => {
    const { code, stdout, stderr } = await cli(['tools', 'call', 'crashy__crash', '--config', config]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe('agentforge: server "crashy" exited with code 3 during tools/call crash\n');
  });

  it('the stack only with AGENTFORGE_DEBUG=1 or --verbose', async () => {
    const quiet = await cli(['tools', 'call', 'crashy__crash', '--config', config]);
    expectNoStack(quiet.stderr);
    const debug = await cli(['tools', 'call', 'crashy__crash', '--config', config], {
      env: { AGENTFORGE_DEBUG: '1' },
    });
    expect(debug.stderr).toMatch(
      /^agentforge: server "crashy" exited with code 3 during tools\/call crash\n/,
    );
    expect(debug.stderr).toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  });

  it('a config error is one line naming the file, the server and the key, without a doubled prefix', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(broken, JSON.stringify({ mcpServers: { w: { command: 'node', port: 3 } } }));
    const { code, stderr } = await cli(['tools', 'list', '--config', broken]);
    expect(code).toBe(1);
    expect(stderr).toBe(`agentforge: ${broken}, server "w", key "port": unknown key\n`);
  });

  it('run without a model says how to get one and names the offline demo model', async () => {
    for (const command of [
      ['run', '--config', config, 'hello'],
      ['chat', '--config', config],
    ]) {
      const { code, stderr } = await cli(command);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /^agentforge: no model: pass --model <provider>:<model> or set AGENTFORGE_MODEL/,
      );
      expect(stderr).toContain('--model demo:offline-rules');
    }
  });

  it('a model that cannot be reached: the URL and the cause', async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await cli(
      ['run', '--quiet', '--config', config, '--model', 'openai:gpt-4o', '--no-input', 'hi'],
      { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` } },
    );
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toBe(
      'agentforge: the run ended without an answer (error): ' +
        `openai: POST http://127.0.0.1:${port}/v1/chat/completions: ECONNREFUSED\n`,
    );
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
