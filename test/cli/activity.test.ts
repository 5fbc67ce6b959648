/**
 * The CLI's display without a terminal (plain lines) and quiet: what each step prints, what a dialogue holds
 * back until it ends, and what a hostile server's text becomes before it reaches a terminal.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  Activity,
  type ActivityMode,
  formatDuration,
  printable,
  progressText,
} from '../../src/cli/activity.js';

function display(mode: ActivityMode) {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const activity = new Activity({ mode, output, answers: output });
  return { activity, read: () => text };
}

/** A dialogue held open until `release` is called; `open` settles once the activity has let it end. */
function openDialogue(activity: Activity): { open: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const open = activity.dialogue(
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
      }),
  );
  return { open, release: () => release() };
}

describe('plain lines (not a terminal)', () => {
  it('one line per step, progress at most once a second unless its message changes', () => {
    const { activity, read } = display('plain');
    activity.start('s', 'connecting github', true);
    activity.end('s', '✓ github ready, 12 tools (120 ms)');
    activity.start('t', 'thinking');
    activity.end('t');
    activity.start('c', 'fs__scan', true);
    activity.progress('c', { progress: 1, total: 4, message: 'file a' });
    activity.progress('c', { progress: 2, total: 4, message: 'file a' }); // same message, too soon
    activity.progress('c', { progress: 3, total: 4, message: 'file c' });
    activity.note('c', 'task working: halfway');
    activity.end('c', '✓ fs__scan ok (1.2 s)');
    activity.close();
    expect(read()).toBe(
      [
        'connecting github…',
        '✓ github ready, 12 tools (120 ms)',
        'fs__scan…',
        'fs__scan: 1/4 (25%) file a',
        'fs__scan: 3/4 (75%) file c',
        'fs__scan: task working: halfway',
        '✓ fs__scan ok (1.2 s)',
        '',
      ].join('\n'),
    );
  });

  it('holds every line while a dialogue is open and while an answer streams, then prints them in order', async () => {
    const { activity, read } = display('plain');
    const { open, release } = openDialogue(activity);
    activity.line('[fs] warning: slow disk');
    activity.wait('c', 'waiting for approval: fs__write');
    expect(read()).toBe('');
    release();
    await open;
    expect(read()).toBe('[fs] warning: slow disk\n⏸ waiting for approval: fs__write\n');
    activity.answer('The ans');
    activity.line('[fs] error: gone');
    activity.answer('wer.');
    activity.endAnswer();
    expect(read()).toMatch(/The answer\.\n\[fs\] error: gone\n$/);
  });

  it('keeps at most 500 lines while a question is open, and says how many it dropped', async () => {
    const { activity, read } = display('plain');
    const { open, release } = openDialogue(activity);
    for (let i = 0; i < 600; i++) activity.line(`[chatty] info: line ${i}`);
    release();
    await open;
    const lines = read().trimEnd().split('\n');
    expect(lines).toHaveLength(501);
    expect(lines[0]).toBe('… 100 earlier line(s) not shown while a question was open');
    expect(lines[1]).toBe('[chatty] info: line 100');
    expect(lines.at(-1)).toBe('[chatty] info: line 599');
  });

  it('quiet prints only lines it is given (logs, warnings), not the steps', () => {
    const { activity, read } = display('quiet');
    activity.start('s', 'connecting github', true);
    activity.end('s', '✓ github ready');
    activity.wait('c', 'waiting for approval: x');
    activity.line('[github] error: boom');
    expect(read()).toBe('[github] error: boom\n');
  });
});

describe("a server's text on the terminal", () => {
  it('loses escape sequences, control characters and bidi overrides, and is one bounded line', () => {
    expect(printable('\u001b[2J\u001b]0;pwned\u0007clear\r\nscreen\u202eevil')).toBe(
      '[2J ]0;pwned clear screen evil',
    );
    expect(printable('x'.repeat(1000), 50)).toBe(`${'x'.repeat(49)}…`);
    const { activity, read } = display('plain');
    activity.start('c', 'scan\u001b[31m', true);
    activity.progress('c', { progress: 1, total: 2, message: '\u001b[1A\u001b[2Kgotcha' });
    expect(read()).not.toContain('\u001b');
  });

  it('a bar with a total, a count without; durations read as a person would', () => {
    expect(progressText({ progress: 5, total: 10, message: 'half' }, true)).toBe(
      `[${'█'.repeat(10)}${'░'.repeat(10)}] 5/10 (50%) half`,
    );
    expect(progressText({ progress: 12.5 })).toBe('12.5');
    expect(progressText({ progress: 30, total: 10 })).toBe('30/10 (100%)'); // a server past its total
    expect([850, 1_234, 12_400, 125_000].map(formatDuration)).toEqual(['850 ms', '1.2 s', '12 s', '2m05s']);
  });
});
