/**
 * A real pseudo-terminal for the CLI: a detached tmux session runs the command, `send-keys` types into it and
 * `capture-pane` reads the screen as a person would see it. The exit status lands in a file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let sessions = 0;

export class TmuxSession implements AsyncDisposable {
  readonly name = `agentforge-pty-${process.pid}-${++sessions}`;
  readonly #status: string;
  /** This session's server's socket: kill-server leaves the file behind. */
  readonly #socket: string;

  /** Runs `argv` (no shell parsing of its words) with `env` in a terminal of `width` x `height`. */
  constructor(dir: string, argv: readonly string[], env: Record<string, string>, width = 120, height = 40) {
    this.#status = join(dir, `${this.name}.status`);
    const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
    const assignments = Object.entries(env).map(([k, v]) => quote(`${k}=${v}`));
    const command = `env ${assignments.join(' ')} ${argv.map(quote).join(' ')}; echo $? > ${quote(this.#status)}; sleep 30`;
    this.#tmux(['new-session', '-d', '-s', this.name, '-x', String(width), '-y', String(height), command]);
    this.#socket = this.#tmux(['display-message', '-p', '#{socket_path}'], { encoding: 'utf8' }).trim();
  }

  /**
   * A tmux command on this session's own server (`-L`): sessions sharing the default server raced it, a
   * new-session reaching the server as the last session's kill made it exit ("server exited unexpectedly").
   */
  #tmux(args: readonly string[], options: { encoding?: 'utf8'; stdio?: 'ignore' } = {}): string {
    return String(execFileSync('tmux', ['-L', this.name, ...args], options) ?? '');
  }

  /** The screen's text (the visible pane and what scrolled off it), trailing blanks trimmed. */
  screen(): string {
    return this.#tmux(['capture-pane', '-p', '-J', '-S', '-200', '-t', this.name], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  }

  async waitFor(what: string | RegExp, timeoutMs = 15_000): Promise<string> {
    let seen = '';
    await until(
      `${String(what)} on the terminal`,
      () => {
        seen = this.screen();
        return typeof what === 'string' ? seen.includes(what) : what.test(seen);
      },
      timeoutMs,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the screen:\n${seen}`);
    });
    return seen;
  }

  type(keys: string): void {
    this.#tmux(['send-keys', '-t', this.name, '-l', keys]);
  }

  /** A named key (`C-c`, `Escape`), as tmux spells it. */
  key(name: string): void {
    this.#tmux(['send-keys', '-t', this.name, name]);
  }

  enter(): void {
    this.#tmux(['send-keys', '-t', this.name, 'Enter']);
  }

  /** The command's exit code, once it has ended. */
  async exitCode(timeoutMs = 20_000): Promise<number> {
    await until(
      'the command to end',
      () => existsSync(this.#status) && readFileSync(this.#status, 'utf8').trim() !== '',
      timeoutMs,
    );
    return Number(readFileSync(this.#status, 'utf8').trim());
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.#tmux(['kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    rmSync(this.#socket, { force: true });
  }
}
