/**
 * However the CLI is stopped, it cancels what is in flight, shuts its servers down and says how it ended:
 * SIGTERM 143, SIGHUP 129, SIGINT (and Ctrl-C on a terminal) 130, a second signal at once. The servers here
 * are stubborn (test/fixtures/stubborn-server.mjs ignores SIGTERM, SIGHUP and stdin closing, and has a
 * grandchild), so a test passes only if the CLI really kills their process groups. Ctrl-C is typed into a
 * real pseudo-terminal through tmux.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider } from '../support/fake-providers/index.js';
import { ROOT } from '../agent/support.js';

const MAIN = join(ROOT, 'dist/cli/main.js');
const STUBBORN = join(ROOT, 'test/fixtures/stubborn-server.mjs');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-signals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Case {
  readonly config: string;
  readonly pidFile: string;
  readonly log: string;
}

let cases = 0;
async function stubbornConfig(hang = false): Promise<Case> {
  const n = ++cases;
  const pidFile = join(dir, `pids-${n}.json`);
  const log = join(dir, `log-${n}.txt`);
  const config = join(dir, `mcp-${n}.json`);
  const env: Record<string, string> = { STUBBORN_PID_FILE: pidFile, STUBBORN_LOG: log };
  if (hang) env.STUBBORN_HANG = '1';
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { stubborn: { command: process.execPath, args: [STUBBORN], env } } }),
  );
  return { config, pidFile, log };
}

function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(AGENTFORGE_|OPENAI_|ANTHROPIC_|GEMINI_|OLLAMA_)/.test(k)),
  ) as Record<string, string>;
  return { ...env, ...extra };
}

function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], { env: cleanEnv(env), stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, ended };
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Alive and not a zombie (a container's init may be slow to reap). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function serverPids(c: Case): number[] {
  const { pid, grandchild } = JSON.parse(readFileSync(c.pidFile, 'utf8')) as {
    pid: number;
    grandchild: number;
  };
  return [pid, grandchild];
}

async function expectGone(pids: number[]): Promise<void> {
  await until(`processes ${pids.join(', ')} to end`, () => pids.every((pid) => !alive(pid)), 5_000).catch(
    (error: Error) => {
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      throw error;
    },
  );
}

function logOf(c: Case): string {
  return existsSync(c.log) ? readFileSync(c.log, 'utf8') : '';
}

async function callInFlight(
  c: Case,
): Promise<{ child: ChildProcess; ended: ReturnType<typeof startCli>['ended'] }> {
  const started = startCli(['tools', 'call', '--config', c.config, 'stubborn__sleep']);
  await until('the tool call to start', () => logOf(c).includes('sleep started'));
  return started;
}

describe('agentforge stopped by a signal', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const)('%s cancels the call in flight, kills stubborn servers and exits %i', async (name, exitCode) => {
    const c = await stubbornConfig();
    const { child, ended } = await callInFlight(c);
    const pids = serverPids(c);
    child.kill(name);
    const result = await ended;
    expect(result.code).toBe(exitCode);
    expect(result.stderr).toContain(`agentforge: ${name}, cancelling`);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    await expectGone(pids);
    expect(logOf(c)).toContain('cancelled'); // notifications/cancelled reached the server first
  });

  it('a second signal exits at once, and still leaves no server behind', async () => {
    const c = await stubbornConfig();
    const { child, ended } = await callInFlight(c);
    const pids = serverPids(c);
    child.kill('SIGTERM');
    await until('the first signal to be handled', () => true, 100);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = Date.now();
    child.kill('SIGTERM');
    const result = await ended;
    // The graceful close of a stubborn server takes 4 s (stdin, SIGTERM, SIGKILL); the second signal skips it.
    expect(Date.now() - sent).toBeLessThan(1_500);
    expect(result.code).toBe(143);
    expect(result.stderr).toContain('SIGTERM again, exiting now');
    await expectGone(pids);
  });

  it('a signal while a server hangs at connect ends the CLI and that server', async () => {
    const c = await stubbornConfig(true);
    const { child, ended } = startCli(['tools', 'list', '--config', c.config]);
    await until('the server to start', () => existsSync(c.pidFile));
    const pids = serverPids(c);
    const sent = Date.now();
    child.kill('SIGTERM');
    const result = await ended;
    expect(result.code).toBe(143);
    expect(Date.now() - sent).toBeLessThan(8_000);
    await expectGone(pids);
  });
});

const tmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!tmux)('Ctrl-C on a terminal (tmux pseudo-terminal; .ci/run installs tmux)', () => {
  it.each([
    ['run', ['run', '--approve', 'all', '"sleep, please"']],
    ['chat', ['chat', '--approve', 'all']],
  ])('the first Ctrl-C during a `%s` turn cancels the tool call and exits 130', async (command, args) => {
    const c = await stubbornConfig();
    await using fake = await startFakeProvider('openai', () => ({
      toolCalls: [{ name: 'stubborn__sleep', arguments: {} }],
    }));
    const session = `agentforge-test-${process.pid}-${cases}`;
    const status = join(dir, `status-${cases}`);
    const env = Object.entries({ ...fake.env, AGENTFORGE_MODEL: 'openai:gpt-test' })
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ');
    const line = `env ${env} ${process.execPath} ${MAIN} ${args[0]} --config ${c.config} ${args.slice(1).join(' ')}; echo $? > ${status}`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40', line]);
    try {
      if (command === 'chat') {
        // The turn starts once the person has typed a message at the prompt.
        await until('the chat prompt', () =>
          execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' }).includes(
            'type a message',
          ),
        );
        execFileSync('tmux', ['send-keys', '-t', session, 'sleep, please', 'Enter']);
      }
      await until('the tool call to start', () => logOf(c).includes('sleep started'));
      const pids = serverPids(c);
      execFileSync('tmux', ['send-keys', '-t', session, 'C-c']);
      await until('the CLI to exit', () => existsSync(status) && readFileSync(status, 'utf8').trim() !== '');
      expect(readFileSync(status, 'utf8').trim()).toBe('130');
      await expectGone(pids);
      expect(logOf(c)).toContain('cancelled');
    } finally {
      try {
        execFileSync('tmux', ['kill-session', '-t', session], { stdio: 'ignore' });
      } catch {
        // already ended with its command
      }
    }
  });
});

if (!tmux)
  console.warn('signals.test.ts: tmux is not installed here; the Ctrl-C-on-a-terminal test is skipped');
