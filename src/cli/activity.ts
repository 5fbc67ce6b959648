/**
 * What the CLI shows while it works. On a terminal: live rows at the bottom of stderr (a spinner per server
 * connecting, the model thinking, each tool call with its elapsed time and a progress bar), redrawn in place
 * by log-update, with finished steps printed above them. Not on a terminal: plain lines, one per step, no
 * escape codes. Quiet: neither (only what `line` is given: logs, warnings).
 *
 * Output never interleaves: while a dialogue (an approval prompt, a form) is open, or an answer is being
 * streamed onto a line of its own, rows are not drawn and lines are held, then printed when it ends.
 */
import spinners from 'cli-spinners';
import { createLogUpdate } from 'log-update';

export type ActivityMode = 'live' | 'plain' | 'quiet';

export interface ActivityOptions {
  readonly mode: ActivityMode;
  /** Where finished steps, logs and warnings go (stderr for `run`; the chat's own output for `chat`). */
  readonly output: NodeJS.WritableStream;
  /** The terminal the live rows are drawn on (mode `live`). */
  readonly terminal?: NodeJS.WritableStream;
  /** Where streamed answer tokens go. Default: stdout. */
  readonly answers?: NodeJS.WritableStream;
}

export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

interface Row {
  label: string;
  waiting: boolean;
  started: number;
  progress?: Progress;
  note?: string;
  /** When the row last printed a plain progress line, and the message it had. */
  plainAt: number;
  plainMessage: string | undefined;
}

const SPINNER = spinners.dots;
const BAR_WIDTH = 20;
/** Plain mode prints a call's progress at most this often (unless its message changes). */
const PLAIN_PROGRESS_MS = 1_000;
/** Lines kept while a question is open; older ones are dropped (a chatty server must not grow memory). */
const MAX_HELD = 500;
/** Longest text of one row or line taken from a peer. */
const MAX_TEXT = 300;

/** Picks the mode for a stream: live on a terminal (not `TERM=dumb`), plain otherwise, quiet on request. */
export function activityMode(stream: NodeJS.WritableStream, quiet: boolean): ActivityMode {
  if (quiet) return 'quiet';
  const tty = (stream as { isTTY?: boolean }).isTTY === true;
  return tty && process.env.TERM !== 'dumb' ? 'live' : 'plain';
}

/** Every display drawing now, so a signal's message can clear them first (see lifecycle.ts). */
const drawing = new Set<Activity>();

/** Closes every open display: what is printed next starts on a clean line. */
export function closeActivities(): void {
  for (const activity of [...drawing]) activity.close();
}

export class Activity {
  readonly mode: ActivityMode;
  readonly #output: NodeJS.WritableStream;
  readonly #answers: NodeJS.WritableStream;
  readonly #terminal: NodeJS.WritableStream;
  readonly #update: ReturnType<typeof createLogUpdate> | undefined;
  readonly #rows = new Map<string, Row>();
  readonly #held: string[] = [];
  /** Held lines dropped because a question stayed open while a server kept talking. */
  #dropped = 0;
  #dialogues = 0;
  /** A streamed answer left its line open: nothing else may write until it ends. */
  #answerOpen = false;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #closed = false;

  constructor(options: ActivityOptions) {
    this.mode = options.mode;
    this.#output = options.output;
    this.#answers = options.answers ?? process.stdout;
    this.#terminal = options.terminal ?? process.stderr;
    if (options.mode === 'live') this.#update = createLogUpdate(this.#terminal as NodeJS.WriteStream);
    drawing.add(this);
  }

  /** A step begins. `announce`: plain mode prints `<label>…` (steps worth a line of their own). */
  start(key: string, label: string, announce = false): void {
    this.#rows.set(key, {
      label: printable(label),
      waiting: false,
      started: performance.now(),
      plainAt: 0,
      plainMessage: undefined,
    });
    if (this.mode === 'plain' && announce) this.#print(`${printable(label)}…`);
    this.#draw();
  }

  /**
   * The step waits for someone (an approval): a `⏸ <label>` line (live rows are hidden while the question is
   * open, so the line is what says it), and the row shows it as waiting until the step starts for real.
   */
  wait(key: string, label: string): void {
    const row = this.#rows.get(key);
    const text = printable(label);
    if (row) Object.assign(row, { label: text, waiting: true });
    else
      this.#rows.set(key, {
        label: text,
        waiting: true,
        started: performance.now(),
        plainAt: 0,
        plainMessage: undefined,
      });
    if (this.mode === 'quiet') this.#draw();
    else this.#print(`⏸ ${text}`);
  }

  /** notifications/progress of a running step: a bar (with a total) or a count, and its message. */
  progress(key: string, progress: Progress): void {
    const row = this.#rows.get(key);
    if (!row) return;
    row.progress = progress;
    if (this.mode === 'plain') {
      const now = performance.now();
      const message = progress.message ?? '';
      if (now - row.plainAt >= PLAIN_PROGRESS_MS || message !== row.plainMessage) {
        row.plainAt = now;
        row.plainMessage = message;
        this.#print(`${row.label}: ${progressText(progress)}`);
      }
    }
    this.#draw();
  }

  /** A short status of a running step (a task's status and message). */
  note(key: string, note: string): void {
    const row = this.#rows.get(key);
    if (!row) return;
    const text = printable(note);
    if (this.mode === 'plain' && text !== row.note) this.#print(`${row.label}: ${text}`);
    row.note = text;
    this.#draw();
  }

  /** Milliseconds since the step began (0 for an unknown step). */
  elapsed(key: string): number {
    const row = this.#rows.get(key);
    return row ? Math.round(performance.now() - row.started) : 0;
  }

  has(key: string): boolean {
    return this.#rows.has(key);
  }

  /** The step ended; `line` (printed in live and plain mode) says how. */
  end(key: string, line?: string): void {
    if (!this.#rows.delete(key) && line === undefined) return;
    if (line !== undefined && this.mode !== 'quiet') this.#print(line);
    else this.#draw();
  }

  /** A line printed in every mode (logs, verbose event lines); held while a dialogue or answer is open. */
  line(text: string): void {
    this.#print(text);
  }

  /** Streamed answer tokens, on the answers stream; rows are hidden until `endAnswer`. */
  answer(text: string): void {
    if (text === '') return;
    if (!this.#answerOpen) this.#update?.clear();
    this.#answerOpen = true;
    this.#answers.write(text);
  }

  /** Ends a streamed answer with its newline; held lines are printed and rows drawn again. */
  endAnswer(): void {
    if (!this.#answerOpen) return;
    this.#answers.write('\n');
    this.#answerOpen = false;
    this.#flush();
  }

  /** Runs a dialogue with the terminal to itself: rows hidden, lines held until it ends. */
  async dialogue<T>(run: () => Promise<T>): Promise<T> {
    if (this.#dialogues++ === 0) {
      this.#update?.clear();
      this.#update?.done();
    }
    try {
      return await run();
    } finally {
      if (--this.#dialogues === 0) this.#flush();
    }
  }

  /** Stops drawing, clears the rows and prints what is held. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    drawing.delete(this);
    this.#rows.clear();
    this.endAnswer();
    this.#stopTimer();
    this.#update?.clear();
    this.#update?.done();
    this.#dialogues = 0;
    this.#flush();
  }

  get #blocked(): boolean {
    return this.#dialogues > 0 || this.#answerOpen;
  }

  #print(text: string): void {
    if (this.#blocked && !this.#closed) {
      if (this.#held.push(text) > MAX_HELD) {
        this.#held.shift();
        this.#dropped++;
      }
      return;
    }
    this.#update?.clear();
    this.#output.write(`${text}\n`);
    this.#draw();
  }

  #flush(): void {
    const held = this.#held.splice(0);
    if (this.#dropped > 0)
      held.unshift(`… ${this.#dropped} earlier line(s) not shown while a question was open`);
    this.#dropped = 0;
    if (held.length > 0) {
      this.#update?.clear();
      this.#output.write(`${held.join('\n')}\n`);
    }
    this.#draw();
  }

  /** Draws the rows (live mode), and keeps the spinner turning while there are any. */
  #draw(): void {
    const update = this.#update;
    if (!update || this.#closed || this.#blocked) {
      this.#stopTimer();
      return;
    }
    if (this.#rows.size === 0) {
      update.clear();
      this.#stopTimer();
      return;
    }
    const width = Math.max(20, ((this.#terminal as { columns?: number }).columns ?? 80) - 1);
    const frame = SPINNER.frames[this.#frame % SPINNER.frames.length] ?? '*';
    const now = performance.now();
    update([...this.#rows.values()].map((row) => clip(renderRow(row, frame, now), width)).join('\n'));
    this.#timer ??= setInterval(() => {
      this.#frame++;
      this.#draw();
    }, SPINNER.interval).unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function renderRow(row: Row, frame: string, now: number): string {
  if (row.waiting) return `⏸ ${row.label}`;
  const parts = [`${frame} ${row.label} ${formatDuration(now - row.started)}`];
  if (row.progress) parts.push(progressText(row.progress, true));
  if (row.note) parts.push(`(${row.note})`);
  return parts.join('  ');
}

/** `[██████░░░░] 3/10 scanning` with a total (bar only on a terminal), `3 scanning` without. */
export function progressText(progress: Progress, bar = false): string {
  const message = progress.message === undefined ? '' : ` ${printable(progress.message)}`;
  const count = Number.isInteger(progress.progress)
    ? String(progress.progress)
    : progress.progress.toFixed(1);
  if (progress.total === undefined) return `${count}${message}`;
  const ratio = Math.min(1, Math.max(0, progress.progress / progress.total));
  const filled = Math.round(ratio * BAR_WIDTH);
  const drawn = bar ? `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ` : '';
  return `${drawn}${count}/${progress.total} (${Math.round(ratio * 100)}%)${message}`;
}

/** `850 ms`, `1.2 s`, `12 s`, `2m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/**
 * Text from a peer made safe for a terminal: control characters (escape sequences could move the cursor,
 * clear the screen or retitle the window) and bidirectional overrides become spaces; one line, bounded.
 */
export function printable(text: string, max = MAX_TEXT): string {
  const flat = text
    .slice(0, max * 4)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
