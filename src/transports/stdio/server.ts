import type { Readable, Writable } from 'node:stream';
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONRPCMessage, RequestId } from '../../jsonrpc/messages.js';
import type { Transport } from '../../jsonrpc/transport.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { DEFAULT_MAX_LINE_BYTES, LineReader, LineWriter, requestIdOf } from './framing.js';

export interface StdioServerTransportOptions {
  stdin?: Readable;
  stdout?: Writable;
  maxLineBytes?: number;
  logger?: Logger;
}

/**
 * The server side of the stdio transport: reads the process's stdin, writes only protocol messages to stdout
 * (logs belong on stderr), closes on stdin EOF, and treats EPIPE as the client having gone, not as a loop.
 */
export class StdioServerTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onpostfailed?: Transport['onpostfailed'];

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #reader: LineReader;
  readonly #writer: LineWriter;
  readonly #logger: Logger;
  #closed = false;

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#logger = options.logger ?? silentLogger;
    this.#writer = new LineWriter(this.#stdout, (error) => this.onerror?.(error), this.#onPostFailed);
    this.#reader = new LineReader(
      {
        onvalue: (value) => this.onmessage?.(value),
        onbadline: (error, line) => {
          this.#logger.warn(`skipped a non-JSON line: ${line}`);
          this.onerror?.(new LocalError('protocol_error', `non-JSON line skipped: ${error.message}`));
        },
        onoverflow: (error) => this.#finish(error),
      },
      options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.once('end', this.#onEnd);
    this.#stdin.once('error', this.#onStreamError);
    this.#stdout.on('error', this.#onStreamError);
  }

  readonly #onData = (chunk: Buffer | string) => {
    this.#reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  readonly #onEnd = () => this.#finish(undefined);

  readonly #onStreamError = (error: NodeJS.ErrnoException) => {
    // EPIPE / ERR_STREAM_DESTROYED: the client is gone; stop instead of retrying writes forever.
    this.#finish(new LocalError('connection_closed', `stdio stream failed: ${error.code ?? error.message}`));
  };

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || this.#stdout.destroyed) {
      return Promise.reject(new LocalError('connection_closed', 'stdio transport is closed'));
    }
    return this.#writer.write(message);
  }

  /**
   * As `send`, without a promise: a failure (the transport closed, the write failed) goes to `onerror`, a
   * request's to `onpostfailed` when set. A server that answers many requests and only needs to hear of a
   * failure makes no promise per answer (or per batch).
   */
  post(message: JSONRPCMessage): string | undefined {
    // Without an `onpostfailed`, every failure is the batch's one `onerror`.
    const id = this.onpostfailed ? requestIdOf(message) : undefined;
    if (this.#closed || this.#stdout.destroyed) {
      const error = new LocalError('connection_closed', 'stdio transport is closed');
      if (id === undefined) this.onerror?.(error);
      else this.#onPostFailed(error, [id]);
      return undefined;
    }
    return this.#writer.post(message, id);
  }

  readonly #onPostFailed = (error: Error, ids: readonly RequestId[]): void => {
    if (this.onpostfailed) this.onpostfailed(error, ids);
    else this.onerror?.(error);
  };

  async close(): Promise<void> {
    this.#finish(undefined);
  }

  #finish(reason: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    // Messages already sent go out before anyone learns of the close (and perhaps exits the process).
    this.#writer.flush();
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    // Stop holding the event loop open on stdin so the process can exit once work is done.
    if ('pause' in this.#stdin) this.#stdin.pause();
    this.onclose?.(reason);
  }
}
