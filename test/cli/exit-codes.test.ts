/**
 * Exit codes say what happened (documented in `agentforge --help`): a server the command needed that never
 * connected (crashed, or hung at connect) is 1 and named; `run` goes on with the usable servers after a
 * warning and fails only with none; every call denied is 3; `--max-steps` is 4. `--approve` globs and
 * `--group` names that match nothing are warned about. The model is a fake OpenAI endpoint on 127.0.0.1.
 */
import { defaultServerLogDir } from '../../src/agent/server-logs.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { WEATHER } from '../agent/support.js';
import { cli, expectNoStack } from './support.js';

/** Where the CLI keeps a server's stderr (the user's state dir: these tests set no AGENTFORGE_LOG_DIR). */
const logOf = (server: string) => join(defaultServerLogDir(), `mcp-server-${server}.log`);

const HANG = ['-e', 'process.stdin.resume(); setInterval(() => {}, 1 << 30);'];
const CRASH = ['-e', 'console.error("no database"); process.exit(5)'];

let dir: string;
const configs: Record<string, string> = {};
let fake: FakeProvider;

async function writeConfig(name: string, servers: Record<string, unknown>): Promise<void> {
  configs[name] = join(dir, `${name}.json`);
  await writeFile(configs[name], JSON.stringify({ mcpServers: servers }));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-exit-'));
  const weather = { command: process.execPath, args: [WEATHER], group: 'outside' };
  await writeConfig('hang', { weather, stuck: { command: process.execPath, args: HANG } });
  await writeConfig('crash', { weather, down: { command: process.execPath, args: CRASH } });
  await writeConfig('dead', { down: { command: process.execPath, args: CRASH } });
  await writeConfig('ok', { weather });
  // Calls get_weather until it sees a result; answers with what it saw (a denial included).
  fake = await startFakeProvider('openai', (body) => {
    const results = readToolResults('openai', body);
    const again = body.messages.some(
      (m: { role: string; content: unknown }) => m.role === 'user' && String(m.content).includes('again'),
    );
    if (results.length === 0 || again)
      return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Hangzhou' } }] };
    return { text: `saw: ${results.at(-1)?.text}` };
  });
});

afterAll(async () => {
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a server that never connected', () => {
  it('hanging at connect fails tools list after --timeout, naming it, and the others are still listed', async () => {
    const started = Date.now();
    const { code, stdout, stderr } = await cli([
      'tools',
      'list',
      '--config',
      configs.hang!,
      '--timeout',
      '1',
    ]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(code).toBe(1);
    expect(stdout).toContain('weather__get_weather\tweather/get_weather');
    expect(stderr).toContain(
      `agentforge: server "stuck" did not connect in time (it hangs at connect); its stderr is in ${logOf('stuck')}; its tools are not listed\n`,
    );
  });

  it('crashing at start fails tools call on its tool with one line (and its stderr)', async () => {
    const { code, stdout, stderr } = await cli([
      'tools',
      'call',
      'down__anything',
      '--config',
      configs.crash!,
    ]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toBe(
      `agentforge: server "down" failed to connect (exited with code 5; stderr: no database); its stderr is in ${logOf('down')}, ` +
        'so its tool down__anything is not available\n',
    );
  });

  it('run warns once and goes on with the usable servers', async () => {
    const { code, stdout, stderr } = await cli(
      ['run', '--quiet', '--config', configs.crash!, '--model', fake.spec(), '--approve', 'all', 'weather?'],
      { env: fake.env },
    );
    expect(stderr).toBe(
      `agentforge: warning: server "down" failed to connect (exited with code 5; stderr: no database); its stderr is in ${logOf('down')}; ` +
        'its tools are not available\n',
    );
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'saw: Hangzhou: 26°C, sunny\n' });
  });

  it('run with no usable server at all exits 1', async () => {
    const { code, stdout, stderr } = await cli(
      ['run', '--config', configs.dead!, '--model', fake.spec(), 'weather?'],
      {
        env: fake.env,
      },
    );
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/\nagentforge: no server is usable \("down" did not connect\)\n$/);
    expectNoStack(stderr);
  });
});

describe('how a run ended', () => {
  it('every tool call denied: the answer is printed and the exit code is 3', async () => {
    const { code, stdout, stderr } = await cli(
      ['run', '--quiet', '--config', configs.ok!, '--model', fake.spec(), 'weather?'],
      {
        env: fake.env,
      },
    );
    expect(stdout).toBe(
      'saw: [tool error] Tool call denied: approval required and no one is there to approve it\n',
    );
    expect(stderr).toBe(
      'agentforge: every tool call was denied (1); --approve or the server\'s "approval" key allows them\n',
    );
    expect(code).toBe(3);
  });

  it('--max-steps reached: exit 4', async () => {
    const { code, stderr } = await cli(
      [
        'run',
        '--quiet',
        '--config',
        configs.ok!,
        '--model',
        fake.spec(),
        '--approve',
        'all',
        '--max-steps',
        '2',
        'again',
      ],
      { env: fake.env },
    );
    expect(stderr).toBe('agentforge: the run hit --max-steps 2 before the model answered\n');
    expect(code).toBe(4);
  });

  it('--approve globs and --group names that match nothing are warned about, with the nearest name', async () => {
    const { code, stderr } = await cli(
      [
        'run',
        '--quiet',
        '--config',
        configs.ok!,
        '--model',
        fake.spec(),
        '--approve',
        'wether__*,weather__get_weather',
        '--group',
        'outsde',
        'weather?',
      ],
      { env: fake.env },
    );
    expect(code).toBe(0);
    expect(stderr).toBe(
      'agentforge: warning: --approve "wether__*" matches no tool\n' +
        'agentforge: warning: --group "outsde" matches no server; did you mean "outside"? (groups: outside)\n',
    );
  });
});
