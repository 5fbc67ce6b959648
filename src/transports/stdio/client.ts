import { type ChildProcess, spawn } from 'node:child_process';
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../jsonrpc/messages.js';
import type { Transport } from '../../jsonrpc/transport.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { trackChild, untrackChild } from './children.js';
import { defaultEnvironment } from './env.js';
import { DEFAULT_MAX_LINE_BYTES, LineReader, LineWriter } from './framing.js';
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

  readonly #params: StdioServerParameters;
  readonly #options: StdioClientTransportOptions;
  readonly #logger: Logger;
  readonly #stderr = new StderrTail();
  #child: ChildProcess | undefined;
  #writer: LineWriter | undefined;
  #exited: Promise<void> | undefined;
  #closing = false;
  #closedFired = false;

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
    if (child.stdin) this.#writer = new LineWriter(child.stdin);
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
