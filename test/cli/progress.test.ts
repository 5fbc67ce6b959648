/**
 * What the CLI shows while it works, seen as a person sees it: on a terminal (a tmux pseudo-terminal) a
 * spinner per server connecting, then its ready line; a tool call's notifications/progress as a bar with its
 * message; an approval prompt that nothing else writes into, the call it is for shown as waiting. Not on a
 * terminal: plain lines and no escape codes. Server logs at or above --log-level, prefixed with the server.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../agent/support.js';
import { type FakeScript, readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { MAIN, cleanEnv, cli } from './support.js';
import { TmuxSession, hasTmux, until } from './tmux.js';

const SERVER = join(ROOT, 'test/fixtures/progress-server.mjs');
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-progress-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let configs = 0;
async function config(env: Record<string, string> = {}, protocolVersion?: string): Promise<string> {
  const path = join(dir, `mcp-${++configs}.json`);
  const server = {
    command: process.execPath,
    args: [SERVER],
    env,
    ...(protocolVersion ? { protocolVersion } : {}),
  };
  await writeFile(path, JSON.stringify({ mcpServers: { progress: server } }));
  return path;
}

/** The model calls `calls` once, then answers with the results it saw. */
function callsThenAnswer(calls: string[]): FakeScript {
  return (body) => {
    const results = readToolResults('openai', body);
    if (results.length === 0) return { toolCalls: calls.map((name) => ({ name, arguments: {} })) };
    return { text: `done: ${results.map((r) => r.text).join(', ')}` };
  };
}

const ESC = '\u001b';

describe('not on a terminal', () => {
  it('run prints plain lines for each step on stderr, no escape codes, and only the answer on stdout', async () => {
    await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__scan']));
    const mcp = await config({ PROGRESS_STEPS: '3', PROGRESS_DELAY_MS: '50' });
    const { code, stdout, stderr } = await cli(
      ['run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', 'scan please'],
      { env: fake.env },
    );
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'done: scanned 3 files\n' });
    expect(stderr).not.toContain(ESC);
    const lines = stderr.split('\n');
    expect(lines[0]).toBe('connecting progress…');
    expect(lines[1]).toMatch(/^✓ progress ready, 5 tools \(\d+ ms\)$/);
    expect(lines).toContain('progress__scan…');
    expect(lines).toContain('progress__scan: 1/3 (33%) scanning file 1');
    expect(lines).toContain('progress__scan: 3/3 (100%) scanning file 3');
    expect(lines.at(-2)).toMatch(/^✓ progress__scan ok \(\d+ ms\)$/);
  });

  it("a task-backed call (SEP-2663) shows each of its task's statuses", async () => {
    await using fake = await startFakeProvider('openai', (body) => {
      const results = readToolResults('openai', body);
      if (results.length === 0) return { toolCalls: [{ name: 'tasks__render', arguments: { ms: 1200 } }] };
      return { text: results[0]?.text ?? '' };
    });
    const mcp = join(dir, 'tasks.json');
    const tasks = {
      command: process.execPath,
      args: [join(ROOT, 'test/fixtures/tasks-server.mjs'), '--stdio'],
    };
    await writeFile(mcp, JSON.stringify({ mcpServers: { tasks } }));
    const { code, stdout, stderr } = await cli(
      ['run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', 'render'],
      { env: fake.env },
    );
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'rendered in 1200 ms (task)\n' });
    expect(stderr).toMatch(/\ntasks__render: task working(: rendering)?\n/);
    expect(stderr).toMatch(/\ntasks__render: task completed\n✓ tasks__render ok \([\d.]+ s\)\n/);
  });

  it('a server that fails to connect is named once, by its warning, after its connecting line', async () => {
    await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__write']));
    const mcp = join(dir, 'one-down.json');
    const crash = "process.stderr.write('no database\\n'); process.exit(5)";
    const servers = {
      progress: { command: process.execPath, args: [SERVER] },
      down: { command: process.execPath, args: ['-e', crash] },
    };
    await writeFile(mcp, JSON.stringify({ mcpServers: servers }));
    const { code, stderr } = await cli(['run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', 'write'], {
      env: fake.env,
    });
    expect(code).toBe(0);
    const about = stderr.split('\n').filter((line) => /\bdown\b/.test(line));
    expect(about).toHaveLength(2);
    expect(about[0]).toBe('connecting down…');
    expect(about[1]).toMatch(
      /^agentforge: warning: server "down" failed to connect \(exited with code 5; stderr: no database\)/,
    );
  });

  it('--quiet leaves stderr to warnings and errors', async () => {
    await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__scan']));
    const mcp = await config({ PROGRESS_STEPS: '2', PROGRESS_DELAY_MS: '10' });
    const { code, stdout, stderr } = await cli(
      ['run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', '--quiet', 'scan please'],
      { env: fake.env },
    );
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'done: scanned 2 files\n', stderr: '' });
  });
});

const WARNING = '[progress] warning storage: disk almost full\n';

// Without the flag: a 2026-07-28 server sends no log unasked (the request carries no logLevel); a handshake
// server sends at its own default, and the CLI shows warnings and above.
describe.each([
  ['2026-07-28 (logLevel in _meta)', undefined, ''],
  ['2025-06-18 (logging/setLevel)', '2025-06-18', WARNING],
])('--log-level over %s', (_era, protocolVersion, unasked) => {
  it('warning shows the warning log, prefixed with the server, and hides the info one', async () => {
    const mcp = await config({}, protocolVersion);
    const { code, stdout, stderr } = await cli([
      'tools',
      'call',
      'progress__chatter',
      '-c',
      mcp,
      '--log-level',
      'warning',
    ]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'chattered\n' });
    expect(stderr).toBe(WARNING);
  });

  it('info shows both, in order, and keeps them in the server log; without the flag no level is asked for', async () => {
    const mcp = await config({}, protocolVersion);
    const logs = await mkdtemp(join(dir, 'logs-'));
    const info = await cli(['tools', 'call', 'progress__chatter', '-c', mcp, '--log-level', 'info'], {
      env: { AGENTFORGE_LOG_DIR: logs },
    });
    expect(info.stderr).toBe(`[progress] info: routine detail nobody asked for\n${WARNING}`);
    expect(await readFile(join(logs, 'mcp-server-progress.log'), 'utf8')).toMatch(
      /Z \[notifications\/message info\] routine detail nobody asked for\n.*Z \[notifications\/message warning storage\] disk almost full\n$/,
    );
    const none = await cli(['tools', 'call', 'progress__chatter', '-c', mcp]);
    expect({ code: none.code, stderr: none.stderr }).toEqual({ code: 0, stderr: unasked });
  });
});

it('run --log-level shows the logs of the calls the agent makes, plain lines around them', async () => {
  await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__chatter']));
  const mcp = await config();
  const { code, stdout, stderr } = await cli(
    ['run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', '--log-level', 'warning', 'chat'],
    { env: fake.env },
  );
  expect({ code, stdout }).toEqual({ code: 0, stdout: 'done: chattered\n' });
  expect(stderr).toMatch(
    /\nprogress__chatter…\n\[progress\] warning storage: disk almost full\n✓ progress__chatter ok/,
  );
  expect(stderr).not.toContain('routine detail');
});

it("a server's logs and progress messages reach the terminal without their escape sequences", async () => {
  await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__hostile']));
  const mcp = await config();
  const { code, stderr } = await cli(
    ['run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', '--log-level', 'debug', 'go'],
    { env: fake.env },
  );
  expect(code).toBe(0);
  expect(stderr).toContain('[progress] error [1Aevil: ]0;pwned [2Jscreen cleared [31m\n');
  expect(stderr).toContain('progress__hostile: 1/2 (50%) [1A [2Krow rewritten\n');
  const controls = [...stderr].filter(
    (c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f),
  );
  expect(controls).toEqual([]);
});

it('--log-level names an RFC 5424 level, with the nearest one suggested', async () => {
  const mcp = await config();
  const { code, stderr } = await cli(['run', '-c', mcp, '-m', 'demo', '--log-level', 'warn', 'x']);
  expect(code).toBe(2);
  expect(stderr).toContain(
    'agentforge: --log-level must be one of debug, info, notice, warning, error, critical, alert, emergency; did you mean "warning"?',
  );
});

describe.skipIf(!hasTmux)('on a terminal (tmux pseudo-terminal)', () => {
  it('a spinner per server connecting, then its ready line; a progress bar with the message; the answer', async () => {
    await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__scan']));
    const release = join(dir, 'release-scan');
    const mcp = await config({
      PROGRESS_START_DELAY_MS: '1500',
      PROGRESS_HOLD_AT: '2',
      PROGRESS_RELEASE: release,
    });
    const argv = [process.execPath, MAIN, 'run', '-c', mcp, '-m', fake.spec(), '--approve', 'all', 'scan'];
    await using tty = new TmuxSession(dir, argv, cleanEnv(fake.env));
    const connecting = await tty.waitFor(/connecting progress \d/);
    expect(connecting).toMatch(new RegExp(`${SPINNER.source} connecting progress (\\d+ ms|[\\d.]+ s)`));
    await tty.waitFor(/✓ progress ready, 5 tools \(\d(\.\d)? s\)/);
    const bar = await tty.waitFor('2/4 (50%) scanning file 2');
    expect(bar).toMatch(
      new RegExp(
        `${SPINNER.source} progress__scan [\\d.]+ m?s  \\[█{10}░{10}\\] 2/4 \\(50%\\) scanning file 2`,
      ),
    );
    expect(bar).not.toContain('connecting progress'); // the connecting row is gone, its ready line stays
    // Keys typed ahead while the agent works are not echoed into the rows.
    tty.type('typed ahead');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tty.screen()).not.toContain('typed ahead');
    await writeFile(release, '');
    expect(await tty.exitCode()).toBe(0);
    const end = tty.screen();
    expect(end).toMatch(/✓ progress__scan ok \([\d.]+ m?s\)\ndone: scanned 4 files$/);
    expect(end).not.toMatch(SPINNER); // no row left behind
  });

  it('chat: the turn shows its steps and the streamed answer, and leaves no row behind', async () => {
    await using fake = await startFakeProvider('openai', callsThenAnswer(['progress__scan']), {
      chunkSize: 3,
    });
    const mcp = await config({ PROGRESS_STEPS: '3', PROGRESS_DELAY_MS: '150' });
    const argv = [process.execPath, MAIN, 'chat', '-c', mcp, '-m', fake.spec(), '--approve', 'all'];
    await using tty = new TmuxSession(dir, argv, cleanEnv(fake.env));
    await tty.waitFor('/exit quits\n\n>');
    tty.type('scan please');
    tty.enter();
    await tty.waitFor('done: scanned 3 files\n\n>');
    tty.type('/exit');
    tty.enter();
    expect(await tty.exitCode()).toBe(0);
    const screen = tty.screen();
    expect(screen).toMatch(
      /> scan please\n {2}· model chose 1 tool call: progress__scan\(\{\}\)\n {2}· act: progress__scan -> tools\/call progress \/ scan\n {2}· observe: progress__scan ok in \d+ ms \(approved by policy\): scanned 3 files\ndone: scanned 3 files\n\n> \/exit$/,
    );
    expect(screen).not.toMatch(SPINNER);
  });

  it('tools call shows the spinner and the bar while the tool runs, then only the result', async () => {
    const release = join(dir, 'release-tools-call');
    const mcp = await config({ PROGRESS_HOLD_AT: '3', PROGRESS_RELEASE: release });
    const argv = [process.execPath, MAIN, 'tools', 'call', 'progress__scan', '-c', mcp];
    await using tty = new TmuxSession(dir, argv, cleanEnv());
    const bar = await tty.waitFor('3/4 (75%) scanning file 3');
    expect(bar).toMatch(new RegExp(`${SPINNER.source} progress__scan [\\d.]+ m?s  \\[█{15}░{5}\\]`));
    await writeFile(release, '');
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toBe('scanned 4 files');
  });

  it('the approval prompt is not interleaved with a parallel call, and the call is shown as waiting', async () => {
    await using fake = await startFakeProvider(
      'openai',
      callsThenAnswer(['progress__fast', 'progress__write']),
    );
    const marks = await mkdtemp(join(dir, 'marks-'));
    const mcp = await config({ PROGRESS_MARKS: marks });
    const argv = [
      process.execPath,
      MAIN,
      'run',
      '-c',
      mcp,
      '-m',
      fake.spec(),
      '--approve',
      'progress__fast',
      'go',
    ];
    await using tty = new TmuxSession(dir, argv, cleanEnv(fake.env));
    await tty.waitFor('allow? [y]es / [n]o / [a]lways:');
    // The auto-approved call finishes while the question is open: its line must wait for the answer.
    await until('the parallel call to finish', () => existsSync(join(marks, 'fast-done')));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const asking = tty.screen();
    expect(asking).toMatch(
      /⏸ waiting for approval: progress__write\n\n\? Approve tool call progress__write \(server "progress", tool "write"\)\n {2}arguments: \{\}\n {2}allow\? \[y\]es \/ \[n\]o \/ \[a\]lways:$/,
    );
    expect(asking).not.toContain('progress__fast ok');
    tty.type('y');
    tty.enter();
    expect(await tty.exitCode()).toBe(0);
    const end = tty.screen();
    const answered = end.indexOf('[a]lways: y');
    expect(answered).toBeGreaterThan(0);
    expect(end.indexOf('✓ progress__fast ok')).toBeGreaterThan(answered);
    expect(end.indexOf('✓ progress__write ok')).toBeGreaterThan(answered);
    expect(end).toMatch(/done: fast done, written$/);
  });
});

if (!hasTmux) console.warn('progress.test.ts: tmux is not installed here; the terminal tests are skipped');
