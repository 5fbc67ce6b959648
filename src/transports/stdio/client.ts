import { type ChildProcess, spawn } from 'node:child_process';
import { LocalError } from '../../mcp/local-errors.js';
import type { JSONRPCMessage, RequestId } from '../../jsonrpc/messages.js';
import type { Transport } from '../../jsonrpc/transport.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { trackChild, untrackChild } from './children.js';
import { defaultEnvironment } from './env.js';
import {
  DEFAULT_MAX_LINE_BYTES,
  LineReader,
  LineWriter,
  type OversizedLine,
  requestIdOf,
} from './framing.js';
import { StderrTail } from './stderr-tail.js';

export interface StdioServerParameters {
  command: string;
  args?: readonly string[];
  /** Added to the minimal default environment; the parent's environment is never passed whole. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface StdioClientTransportOptions {
  maxLineBytes?: number;
  logger?: Logger;
  /** Each stderr line of the server, for logs. Stderr is never parsed as protocol. */
  onstderr?: (line: string) => void;
  /** Grace periods of the shutdown sequence (basic/lifecycle: stdio shutdown). */
  stdinCloseGraceMs?: number;
  sigtermGraceMs?: number;
}

/**
 * The client side of the stdio transport: spawns the server (no shell), frames messages as newline-delimited
 * JSON, keeps a tail of stderr for error messages, and shuts down as the spec orders: close stdin, wait, SIGTERM,
 * wait, SIGKILL, applied to the whole process group so `npx`-style grandchildren go too.
 */
export class StdioClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onpostfailed?: Transport['onpostfailed'];

  readonly #params: StdioServerParameters;
  readonly #options: StdioClientTransportOptions;
  readonly #logger: Logger;
  readonly #stderr = new StderrTail();
  #child: ChildProcess | undefined;
  #writer: LineWriter | undefined;
  #exited: Promise<void> | undefined;
  #closing = false;
  #closedFired = false;
  /** The request whose oversized response is being skipped, once its id is known. */
  #oversizedId: string | number | undefined;

  constructor(params: StdioServerParameters, options: StdioClientTransportOptions = {}) {
    this.#params = params;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr.text();
  }

  start(): Promise<void> {
    if (this.#child)
      return Promise.reject(new LocalError('transport_error', 'stdio transport already started'));
    const { command, args = [], env, cwd } = this.#params;
    const child = spawn(command, [...args], {
      cwd,
      env: { ...defaultEnvironment(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
      // Own process group, so shutdown can signal the server's descendants too.
      detached: process.platform !== 'win32',
    });
    this.#child = child;
    if (child.stdin) this.#writer = new LineWriter(child.stdin, this.#onPostError, this.#onPostFailed);
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    return new Promise((resolve, reject) => {
      child.once('error', (error) => {
        const failure = new LocalError('transport_error', `failed to start ${command}: ${error.message}`, {
          cause: error,
        });
        if (child.pid === undefined) reject(failure);
        else this.#fireClose(failure);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) trackChild(child.pid);
        this.#wire(child);
        resolve();
      });
    });
  }

  #wire(child: ChildProcess): void {
    const reader = new LineReader(
      {
        onvalue: (value) => this.onmessage?.(value),
        onbadline: (error, line) => {
          this.#logger.warn(`skipped a non-JSON line from the server: ${line}`);
          this.onerror?.(new LocalError('protocol_error', `non-JSON line skipped: ${error.message}`));
        },
        onoverflow: (error) => {
          this.#fireClose(error);
          void this.close();
        },
        onoversized: (line) => this.#oversized(line),
      },
      this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
    child.stdout?.on('data', (chunk: Buffer) => reader.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      for (const line of this.#stderr.push(chunk)) this.#options.onstderr?.(line);
    });
    // EPIPE when the child dies mid-write: the exit handler reports it.
    child.stdin?.on('error', (error) => this.#logger.debug('server stdin error', error));
    child.once('exit', (code, signal) => {
      // Descendants that outlived the server (an `npx` wrapper's child) go with it.
      this.#killGroup('SIGTERM');
      const pid = child.pid;
      setTimeout(() => {
        this.#killGroup('SIGKILL');
        if (pid !== undefined) untrackChild(pid);
      }, 2000).unref();
      const report = () => this.#fireClose(this.#closing ? undefined : this.#exitError(code, signal));
      // 'close' follows once stdout is drained, so the server's last messages are delivered first; a
      // descendant holding the pipe open must not delay the report for long.
      const fallback = setTimeout(report, 500);
      child.once('close', () => {
        clearTimeout(fallback);
        report();
      });
    });
  }

  /**
   * A response past the cap fails its own request only, as soon as its id is known (from its first bytes,
   * else at its end); a line that is not JSON-RPC, or whose id cannot be told, ends the connection (the
   * client restarts the server when configured to).
   */
  #oversized(line: OversizedLine): boolean {
    if (!line.complete) {
      if (!line.head.trimStart().startsWith('{')) return false;
      this.#oversizedId = responseIdOf(line.head, '');
      if (this.#oversizedId !== undefined) this.#failOversized(this.#oversizedId, line.bytes);
      return true;
    }
    if (this.#oversizedId !== undefined) {
      this.#oversizedId = undefined;
      return true;
    }
    const id = responseIdOf('', line.tail ?? '');
    if (id !== undefined) this.#failOversized(id, line.bytes);
    else {
      const cap = sizeText(this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
      this.#fireClose(
        new LocalError(
          'message_too_large',
          `a message of ${line.bytes} bytes exceeded the ${cap} cap and was not a response`,
        ),
      );
      void this.close();
    }
    return true;
  }

  #failOversized(id: string | number, bytes: number): void {
    const cap = sizeText(this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    this.onerror?.(
      new LocalError('response_too_large', `result exceeded ${cap} (${bytes}+ bytes); it was dropped`, {
        data: { requestId: id },
      }),
    );
  }

  #exitError(code: number | null, signal: NodeJS.Signals | null): LocalError {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = this.#stderr.text();
    const message = `server process ${this.#params.command} ${how}${tail ? `; stderr: ${tail}` : ''}`;
    return new LocalError('process_exited', message, { data: { code, signal, stderr: tail } });
  }

  #fireClose(reason: Error | undefined): void {
    if (this.#closedFired) return;
    this.#closedFired = true;
    this.onclose?.(reason);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable || !this.#writer) {
      return Promise.reject(new LocalError('not_connected', 'server process is not running'));
    }
    return this.#writer.write(message);
  }

  /** As `send`, without a promise: a request that is not written goes to `onpostfailed`, anything else to `onerror`. */
  post(message: JSONRPCMessage): string | undefined {
    // Without an `onpostfailed`, every failure is the batch's one `onerror`.
    const id = this.onpostfailed ? requestIdOf(message) : undefined;
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable || !this.#writer) {
      const error = new LocalError('not_connected', 'server process is not running');
      if (id === undefined) this.onerror?.(error);
      else this.#onPostFailed(error, [id]);
      return undefined;
    }
    return this.#writer.post(message, id);
  }

  readonly #onPostError = (error: Error): void => this.onerror?.(error);

  /** A batch's requests, when `onpostfailed` was set as they were posted (else `post` gave no ids). */
  readonly #onPostFailed = (error: Error, ids: readonly RequestId[]): void => {
    if (this.onpostfailed) this.onpostfailed(error, ids);
    else this.onerror?.(error);
  };

  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closing) return this.#exited;
    this.#closing = true;
    if (child.exitCode === null && child.signalCode === null) {
      // Messages sent just before close go out first.
      this.#writer?.flush();
      child.stdin?.end();
      if (!(await this.#waitExit(this.#options.stdinCloseGraceMs ?? 2000))) {
        this.#killGroup('SIGTERM');
        if (!(await this.#waitExit(this.#options.sigtermGraceMs ?? 2000))) {
          this.#killGroup('SIGKILL');
          await this.#exited;
        }
      }
    }
    this.#fireClose(undefined);
  }

  async #waitExit(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const exited = this.#exited!.then(() => true as const);
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this.#child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

const ID = String.raw`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)`;
/** `{"jsonrpc":"2.0","id":7,"result"...`: the id before the payload. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}\s*,`);
/** `...,"id":7}` or `...,"id":7,"jsonrpc":"2.0"}`: the id after it, one brace from the end (not nested). */
const ID_LAST = new RegExp(String.raw`,\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

/** The top-level id of a response seen only by its first and last bytes, when it can be told for sure. */
export function responseIdOf(head: string, tail: string): string | number | undefined {
  const match = ID_FIRST.exec(head) ?? ID_LAST.exec(tail.replace(/\r$/, ''));
  if (!match) return undefined;
  const raw = match[1]!;
  try {
    return JSON.parse(raw) as string | number;
  } catch {
    return undefined;
  }
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
