import type { Writable } from 'node:stream';
import { LocalError } from '../../jsonrpc/errors.js';
import { stringifyMessage } from '../../jsonrpc/messages.js';

/** 2025-11-25 basic/transports/stdio: messages are newline-delimited and MUST NOT contain embedded newlines. */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

export interface LineReaderEvents {
  /** A parsed JSON value (still to be classified). */
  onvalue(value: unknown): void;
  /** A line that is not JSON: skipped, reported. */
  onbadline(error: Error, line: string): void;
  /** A line grew past the cap without a newline: fatal for the stream. */
  onoverflow(error: LocalError): void;
}

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines and parses each once. Bytes are kept as Buffers until a newline arrives so a
 * multi-byte character split across chunks decodes correctly, and a line over the cap fails fast instead of
 * growing until the process runs out of memory.
 */
export class LineReader {
  readonly #maxLineBytes: number;
  readonly #events: LineReaderEvents;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #failed = false;

  constructor(events: LineReaderEvents, maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.#events = events;
    this.#maxLineBytes = maxLineBytes;
  }

  push(chunk: Buffer): void {
    if (this.#failed) return;
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      if (this.#buffered + piece.length > this.#maxLineBytes) {
        this.#overflow();
        return;
      }
      if (this.#chunks.length === 0) this.#emit(piece);
      else {
        this.#chunks.push(piece);
        const line = Buffer.concat(this.#chunks, this.#buffered + piece.length);
        this.#chunks = [];
        this.#buffered = 0;
        this.#emit(line);
      }
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.#buffered + rest.length > this.#maxLineBytes) {
        this.#overflow();
        return;
      }
      this.#chunks.push(rest);
      this.#buffered += rest.length;
    }
  }

  /** Bytes held for an unfinished line. */
  get buffered(): number {
    return this.#buffered;
  }

  #overflow(): void {
    this.#failed = true;
    this.#chunks = [];
    this.#buffered = 0;
    this.#events.onoverflow(
      new LocalError('message_too_large', `a message exceeded ${this.#maxLineBytes} bytes without a newline`),
    );
  }

  #emit(bytes: Buffer): void {
    // Tolerate CRLF framing from peers on Windows.
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    if (end === 0) return;
    const text = bytes.toString('utf8', 0, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#events.onbadline(error as Error, text.length > 200 ? `${text.slice(0, 200)}…` : text);
      return;
    }
    this.#events.onvalue(value);
  }
}

/** Serialises once; the newline is the frame. JSON.stringify never emits a raw newline inside strings. */
export function frame(message: unknown): string {
  return `${stringifyMessage(message)}\n`;
}

const WRITTEN: Promise<void> = Promise.resolve();

/**
 * Writes framed messages. The first message of a tick goes out at once (a lone request reaches the peer
 * without waiting for the tick to end, so the peer works while we prepare the next); any more sent in the same
 * tick are coalesced into one write from process.nextTick, which runs once the current callback and the promise
 * jobs it started are done. With many requests in flight that is one syscall (and one wake-up of the peer) per
 * batch instead of one per message. A send's promise settles when its text was handed to the stream (after
 * 'drain' when the stream's buffer was full), as with a direct write, and rejects if the stream closes first.
 */
export class LineWriter {
  readonly #stream: Writable;
  /** A message went out directly in this tick: the next ones wait for the tick's batch. */
  #wroteThisTick = false;
  #pending: string | undefined;
  #batch: Promise<void> | undefined;
  #resolve: (() => void) | undefined;
  #reject: ((error: Error) => void) | undefined;
  #drained: Promise<void> | undefined;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  write(message: unknown): Promise<void> {
    let line: string;
    try {
      line = frame(message);
    } catch (error) {
      // Nothing was written; a throw here would escape every caller that only handles the promise.
      return Promise.reject(error);
    }
    if (this.#pending !== undefined) {
      this.#pending += line;
      return this.#batch as Promise<void>;
    }
    if (!this.#wroteThisTick) {
      this.#wroteThisTick = true;
      process.nextTick(this.#flushTick);
      return this.#writeNow(line);
    }
    this.#pending = line;
    this.#batch = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    return this.#batch;
  }

  #writeNow(text: string): Promise<void> {
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded)
      return Promise.reject(
        new LocalError('connection_closed', 'the stream closed before the message was written'),
      );
    if (stream.write(text)) return WRITTEN;
    return this.#drain();
  }

  /**
   * Settles once the stream drains, or rejects if it closes first. Every send made while the buffer is full
   * shares one wait: a fast producer adds one listener, not one per batch.
   */
  #drain(): Promise<void> {
    this.#drained ??= new Promise<void>((resolve, reject) => {
      const stream = this.#stream;
      const settle = (error?: Error) => {
        stream.off('drain', onDrain);
        stream.off('close', onClose);
        this.#drained = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () =>
        settle(new LocalError('connection_closed', 'the stream closed before the message was written'));
      stream.on('drain', onDrain);
      stream.on('close', onClose);
    });
    return this.#drained;
  }

  /** Writes the pending batch now (before ending the stream). */
  flush(): void {
    const text = this.#pending;
    if (text === undefined) return;
    const resolve = this.#resolve as () => void;
    const reject = this.#reject as (error: Error) => void;
    this.#pending = undefined;
    this.#batch = undefined;
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#writeNow(text).then(resolve, reject);
  }

  readonly #flushTick = () => {
    this.#wroteThisTick = false;
    this.flush();
  };
}
