/**
 * The CLI's edges that only show with real processes: killed outright (SIGKILL, no handler runs), Ctrl-C on a
 * terminal while an HTTP tool call is in flight, and a tool result past the stdio transport's cap. Each drives
 * the built CLI (dist/cli/main.js) with real servers and checks the process table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../agent/support.js';
import { readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { cleanEnv, cli, expectNoStack, MAIN } from './support.js';
import { hasTmux, TmuxSession, until } from './tmux.js';

const WAITING = join(ROOT, 'test/fixtures/waiting-server.mjs');
const BIG = join(ROOT, 'test/fixtures/big-result-server.mjs');

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-abrupt-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Alive and not a zombie (a container's init may be slow to reap). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function read(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function startedPids(log: string): number[] {
  return [...read(log).matchAll(/^started (\d+)$/gm)].map((m) => Number(m[1]));
}

async function writeConfig(servers: Record<string, unknown>): Promise<string> {
  const config = join(dir, `mcp-${++files}.json`);
  await writeFile(config, JSON.stringify({ mcpServers: servers }));
  return config;
}

/** Two stdio servers, each logging to its own file. */
async function waitingServers(): Promise<{ config: string; logs: string[] }> {
  const logs = [join(dir, `a-${++files}.log`), join(dir, `b-${files}.log`)];
  const config = await writeConfig({
    a: { command: process.execPath, args: [WAITING], env: { WAITING_LOG: logs[0] } },
    b: { command: process.execPath, args: [WAITING], env: { WAITING_LOG: logs[1] } },
  });
  return { config, logs };
}

function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [MAIN, ...args], { env: cleanEnv(env), stdio: 'pipe' });
}

describe('SIGKILL of the CLI: no handler runs, the servers see stdin close and exit', () => {
  it.each([
    ['tools call', (config: string) => ['tools', 'call', '--config', config, 'a__wait']],
    ['run', (config: string) => ['run', '--config', config, '--approve', 'all', 'wait, please']],
  ] as const)('during `%s`', async (_name, argv) => {
    const { config, logs } = await waitingServers();
    await using fake = await startFakeProvider('openai', () => ({
      toolCalls: [{ name: 'a__wait', arguments: {} }],
    }));
    const child = startCli([...argv(config)], { ...fake.env, AGENTFORGE_MODEL: 'openai:gpt-test' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until('the tool call to start', () => read(logs[0]!).includes('wait started'));
      await until('both servers to start', () => logs.every((log) => startedPids(log).length === 1));
      const pids = logs.flatMap(startedPids);
      child.kill('SIGKILL');
      await exited;
      await until(`servers ${pids.join(', ')} to exit`, () => pids.every((pid) => !alive(pid)), 5_000).catch(
        (error: Error) => {
          for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
          throw error;
        },
      );
      for (const log of logs) expect(read(log)).toMatch(/^exit$/m);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe.skipIf(!hasTmux)('Ctrl-C during `run` with a tool call in flight over Streamable HTTP', () => {
  it('closes the HTTP request (the server sees the call aborted) and exits 130', async () => {
    const log = join(dir, `http-${++files}.log`);
    const server = spawn(process.execPath, [WAITING, '--http'], {
      env: { ...process.env, WAITING_LOG: log },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        server.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).url as string));
        server.once('exit', () => reject(new Error('the HTTP server exited')));
      });
      const config = await writeConfig({ slow: { url } });
      await using fake = await startFakeProvider('openai', () => ({
        toolCalls: [{ name: 'slow__wait', arguments: {} }],
      }));
      await using session = new TmuxSession(
        dir,
        [process.execPath, MAIN, 'run', '--config', config, '--approve', 'all', 'wait, please'],
        cleanEnv({ ...fake.env, AGENTFORGE_MODEL: 'openai:gpt-test' }),
      );
      await until('the tool call to start', () => read(log).includes('wait started'));
      session.key('C-c');
      expect(await session.exitCode()).toBe(130);
      await until('the server to see the call aborted', () => read(log).includes('wait aborted'), 5_000);
      expect(alive(server.pid!)).toBe(true); // the server itself is not the CLI's to end
    } finally {
      server.kill('SIGKILL');
    }
  });
});

describe('a tool result past the stdio cap (10 MiB)', () => {
  it('`tools call` fails that call with one clear line', async () => {
    const config = await writeConfig({ big: { command: process.execPath, args: [BIG] } });
    const ran = await cli(['tools', 'call', '--config', config, 'big__big']);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/result exceeded 10 MiB/);
    expect(ran.stderr).not.toMatch(/x{20}/);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expectNoStack(ran.stderr);
  });

  it('`run`: the call fails as a tool error and the next call on the same server works', async () => {
    const log = join(dir, `big-${++files}.log`);
    const config = await writeConfig({
      big: { command: process.execPath, args: [BIG], env: { BIG_RESULT_LOG: log } },
    });
    await using fake = await startFakeProvider('openai', [
      { toolCalls: [{ name: 'big__big', arguments: {} }] },
      { toolCalls: [{ name: 'big__small', arguments: {} }] },
      { text: 'done' },
    ]);
    const ran = await cli(['run', '--config', config, '--approve', 'all', 'go'], {
      env: { ...fake.env, AGENTFORGE_MODEL: 'openai:gpt-test' },
    });
    expect(ran.code).toBe(0);
    const [first, second] = fake.requests.slice(1, 3).map((r) => readToolResults('openai', r.body)[0]);
    expect(first).toMatchObject({ isError: true });
    expect(first!.text).toMatch(/result exceeded 10 MiB/);
    expect(second).toMatchObject({ isError: false, text: 'ok' });
    expect(startedPids(log)).toHaveLength(1); // the connection was kept: no restart
    expectNoStack(ran.stderr);
  });

  it('`run`: when the connection had to be closed, the server is restarted, the user told, and the next call works', async () => {
    const log = join(dir, `flood-${++files}.log`);
    const config = await writeConfig({
      big: { command: process.execPath, args: [BIG], env: { BIG_RESULT_LOG: log } },
    });
    await using fake = await startFakeProvider('openai', [
      { toolCalls: [{ name: 'big__flood', arguments: {} }] },
      { toolCalls: [{ name: 'big__small', arguments: {} }] },
      { text: 'done' },
    ]);
    const ran = await cli(['run', '--config', config, '--approve', 'all', 'go'], {
      env: { ...fake.env, AGENTFORGE_MODEL: 'openai:gpt-test' },
    });
    const [first, second] = fake.requests.slice(1, 3).map((r) => readToolResults('openai', r.body)[0]);
    expect(first).toMatchObject({ isError: true });
    expect(first!.text).toMatch(/exceeded the 10 MiB cap/);
    expect(second).toMatchObject({ isError: false, text: 'ok' });
    const pids = startedPids(log);
    expect(pids).toHaveLength(2);
    // Told once why the connection went, and once that the server is back.
    expect(ran.stderr).toMatch(
      /^✗ big: connection closed: a message of \d+ bytes exceeded the 10 MiB cap and was not a response$/m,
    );
    expect(ran.stderr.match(/^✓ big restarted, 3 tools/gm)).toHaveLength(1);
    expect(ran.code).toBe(0);
    expectNoStack(ran.stderr);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});
