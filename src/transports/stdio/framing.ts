import { isAscii } from 'node:buffer';
import type { Writable } from 'node:stream';
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONRPCMessage, RequestId } from '../../jsonrpc/messages.js';
import { RepeatedMetaParser } from '../../jsonrpc/repeated-meta.js';
import { stringifyMessage, takeWrittenParams } from '../../jsonrpc/serialise.js';
import { clip } from '../../util/clip.js';

/** 2025-11-25 basic/transports/stdio: messages are newline-delimited and MUST NOT contain embedded newlines. */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

export interface LineReaderEvents {
  /** A parsed JSON value (still to be classified). */
  onvalue(value: unknown): void;
  /** A line that is not JSON: skipped, reported. */
  onbadline(error: Error, line: string): void;
  /** A line grew past the cap without a newline: fatal for the stream (unless `onoversized` is given). */
  onoverflow(error: LocalError): void;
  /**
   * With this handler a line past the cap may be skipped instead of ending the stream: its bytes are dropped
   * as they arrive. The handler is called when the line passes the cap (`complete` false: only `head`, the
   * first bytes, is known) and at its newline (`complete` true, with `tail`, its last bytes, and its size);
   * returning false from the first call makes the line fatal after all. A line still unfinished at 16 times
   * the cap is fatal too.
   */
  onoversized?(line: OversizedLine): boolean;
}

export interface OversizedLine {
  readonly head: string;
  readonly tail: string | undefined;
  readonly bytes: number;
  readonly complete: boolean;
}

/** How much of a skipped line is kept at each end. */
const KEPT_BYTES = 256;

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
  /** The `_meta` every message of a peer ends with is parsed once (src/jsonrpc/repeated-meta.ts). */
  readonly #parser = new RepeatedMetaParser();
  /** Set while skipping a line past the cap: its first bytes, its last bytes so far, its size so far. */
  #skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(events: LineReaderEvents, maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.#events = events;
    this.#maxLineBytes = maxLineBytes;
  }

  push(chunk: Buffer): void {
    if (this.#failed) return;
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    if (this.#skipping) {
      if (newline === -1) {
        this.#skip(chunk);
        return;
      }
      if (!this.#skip(chunk.subarray(0, newline))) return;
      this.#endSkip();
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline !== -1) {
      if (this.#chunks.length === 0) {
        const end = this.#asciiLines(chunk, start);
        if (end !== -1) {
          start = end;
          break;
        }
      }
      const piece = chunk.subarray(start, newline);
      if (this.#buffered + piece.length > this.#maxLineBytes) {
        if (!this.#overflow(piece)) return;
        this.#endSkip();
      } else if (this.#chunks.length === 0) this.#emit(piece);
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
        this.#overflow(rest);
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

  /** A line passed the cap with `piece` as its latest bytes; false when that ends the stream. */
  #overflow(piece: Buffer): boolean {
    const held = this.#chunks.length === 0 ? piece : Buffer.concat([...this.#chunks, piece]);
    this.#chunks = [];
    this.#buffered = 0;
    const head = Buffer.from(held.subarray(0, KEPT_BYTES));
    const skip = this.#events.onoversized?.({
      head: head.toString('utf8'),
      tail: undefined,
      bytes: held.length,
      complete: false,
    });
    if (!skip) return this.#fail();
    this.#skipping = { head, tail: Buffer.from(held.subarray(-KEPT_BYTES)), bytes: held.length };
    return true;
  }

  #fail(): false {
    this.#failed = true;
    this.#skipping = undefined;
    this.#events.onoverflow(
      new LocalError('message_too_large', `a message exceeded ${this.#maxLineBytes} bytes without a newline`),
    );
    return false;
  }

  /** Drops `bytes` of the line being skipped, keeping its last bytes; false when it has run on too long. */
  #skip(bytes: Buffer): boolean {
    const skipping = this.#skipping!;
    skipping.bytes += bytes.length;
    if (skipping.bytes > this.#maxLineBytes * 16) return this.#fail();
    skipping.tail =
      bytes.length >= KEPT_BYTES
        ? Buffer.from(bytes.subarray(-KEPT_BYTES))
        : Buffer.concat([skipping.tail, bytes]).subarray(-KEPT_BYTES);
    return true;
  }

  #endSkip(): void {
    const { head, tail, bytes } = this.#skipping!;
    this.#skipping = undefined;
    this.#events.onoversized?.({
      head: head.toString('utf8'),
      tail: tail.toString('utf8'),
      bytes,
      complete: true,
    });
  }

  /**
   * The complete lines from `start` to the chunk's last newline at once, when they are all ASCII and together
   * within the cap (no line can pass it): one decode for the whole run instead of one per line. Returns where
   * the unfinished rest begins, or -1 to leave the run to the per-line path.
   */
  #asciiLines(chunk: Buffer, start: number): number {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last - start > this.#maxLineBytes || !isAscii(chunk.subarray(start, last))) return -1;
    const text = chunk.toString('latin1', start, last);
    let from = 0;
    while (from <= text.length) {
      let to = text.indexOf('\n', from);
      if (to === -1) to = text.length;
      const end = to > from && text.charCodeAt(to - 1) === 0x0d ? to - 1 : to;
      if (end > from) this.#parse(text.slice(from, end));
      from = to + 1;
    }
    return last + 1;
  }

  #emit(bytes: Buffer): void {
    // Tolerate CRLF framing from peers on Windows.
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    if (end === 0) return;
    this.#parse(bytes.toString('utf8', 0, end));
  }

  #parse(text: string): void {
    let value: unknown;
    try {
      value = this.#parser.parse(text);
    } catch (error) {
      this.#events.onbadline(error as Error, clip(text));
      return;
    }
    this.#events.onvalue(value);
  }
}

/** Serialises once; the newline is the frame. JSON.stringify never emits a raw newline inside strings. */
export function frame(message: unknown): string {
  return `${stringifyMessage(message)}\n`;
}

/** The id of a request (a message with a method and an id); undefined for a notification or a response. */
export function requestIdOf(message: JSONRPCMessage): RequestId | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

const WRITTEN: Promise<void> = Promise.resolve();

/**
 * A batch as the stream should hold it. A stream past its high-water mark (the peer reads slower than this side
 * writes) queues it until the earlier ones are written; a string would wait in the V8 heap, and a burst's
 * batches, surviving scavenge after scavenge while the peer reads, make V8 grow its young generation for good.
 * As bytes (a Buffer, outside the V8 heap) it is memory the write frees. A pipe encodes a string to bytes when
 * it writes it anyway: the same work, done earlier.
 */
function queuedForm(stream: Writable, text: string): string | Buffer {
  return stream.writableNeedDrain && !stream.writableObjectMode ? Buffer.from(text, 'utf8') : text;
}

/**
 * A tick's batch goes out as soon as it holds this many UTF-16 units: when one tick makes many messages (a chunk
 * of answers each starting the next request, a burst of calls), the peer, a process often on the other core,
 * starts on the first slice while this side is still making the rest, instead of both taking turns.
 */
const SLICE_CHARS = 8 * 1024;

/**
 * The slice while the stream is past its high-water mark: the peer has the queue to read, so a smaller slice
 * would not start it sooner, and a burst queued as few large Buffers left less resident memory behind it than
 * as many 8 KiB ones (bench/NOTES-perf.md, "seventh round").
 */
const QUEUED_SLICE_CHARS = 128 * 1024;

/**
 * Writes framed messages. Every message sent in one tick is coalesced into one write from process.nextTick,
 * which runs once the current callback and the promise jobs it started are done: with many requests in flight
 * that is one syscall (and one wake-up of the peer) per tick instead of one per message; a batch that reaches
 * `SLICE_CHARS` is written at once, the rest of the tick's messages making the next. While traffic is sparse
 * (the last tick carried one message) a tick's first message is written at once: the peer starts on it while
 * this side goes on with the tick (an agent's turn sends one call to each of several servers), and only the
 * tick's later messages wait for its end. A send's promise settles when its text
 * was handed to the stream (after 'drain' when the stream's buffer was full), as with a direct write, and
 * rejects if the stream closes first. `post` queues a message the same way without a promise: a batch that
 * only posted makes none, and a failed write of it is reported once, the ids of the requests it held to
 * `onpostfailed`, other posted messages to `onerror`.
 */
export class LineWriter {
  readonly #stream: Writable;
  readonly #onerror: ((error: Error) => void) | undefined;
  readonly #onpostfailed: ((error: Error, ids: readonly RequestId[]) => void) | undefined;
  #pending: string | undefined;
  /** The length of `#pending` (UTF-16 units). */
  #pendingLength = 0;
  /** The tick's batch promise, made for the first `write` of the tick (never for `post`). */
  #batch: Promise<void> | undefined;
  #resolve: (() => void) | undefined;
  #reject: ((error: Error) => void) | undefined;
  /** A message that is no request was posted in this tick's batch: a failed write is reported to `onerror`. */
  #posted = false;
  /** The first request posted in this tick's batch, and the others (a list only for a batch of several). */
  #firstId: RequestId | undefined;
  #moreIds: RequestId[] | undefined;
  #drained: Promise<void> | undefined;
  /** Messages queued since the tick's flush was scheduled (the first of them maybe written at once). */
  #tickMessages = 0;
  /** The last tick carried one message: the next tick's first message is written at once. */
  #sparse = false;

  constructor(
    stream: Writable,
    onerror?: (error: Error) => void,
    onpostfailed?: (error: Error, ids: readonly RequestId[]) => void,
  ) {
    this.#stream = stream;
    this.#onerror = onerror;
    this.#onpostfailed = onpostfailed;
  }

  write(message: unknown): Promise<void> {
    let line: string;
    try {
      line = frame(message);
    } catch (error) {
      // Nothing was written; a throw here would escape every caller that only handles the promise.
      return Promise.reject(error);
    }
    // The batch's promise first: queuing the line may write the batch at once (a full slice).
    const batch = (this.#batch ??= new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    }));
    this.#enqueue(line);
    return batch;
  }

  /**
   * As `write`, for a sender that only needs to hear of a failure (a throw if unframable): a request's (`id`
   * given) goes to `onpostfailed` when there is one, any other to `onerror`. Returns a request's params text as
   * the line holds it (`takeWrittenParams`), when its envelope was written around it.
   */
  post(message: unknown, id?: RequestId): string | undefined {
    const line = frame(message);
    const params = takeWrittenParams();
    // Counted in the batch before queuing the line, which may write the batch at once (a full slice).
    if (id === undefined || this.#onpostfailed === undefined) this.#posted = true;
    else if (this.#firstId === undefined) this.#firstId = id;
    else (this.#moreIds ??= []).push(id);
    this.#enqueue(line);
    return params;
  }

  #enqueue(line: string): void {
    if (this.#pending === undefined) {
      this.#pending = line;
      this.#pendingLength = line.length;
      if (this.#tickMessages++ === 0) {
        process.nextTick(this.#flushTick);
        if (this.#sparse) {
          this.flush();
          return;
        }
      }
    } else {
      this.#tickMessages++;
      this.#pending += line;
      this.#pendingLength += line.length;
    }
    const length = this.#pendingLength;
    if (length >= SLICE_CHARS && (length >= QUEUED_SLICE_CHARS || this.#stream.writableNeedDrain !== true))
      this.flush();
  }

  #writeNow(text: string): Promise<void> {
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded)
      return Promise.reject(
        new LocalError('connection_closed', 'the stream closed before the message was written'),
      );
    if (stream.write(queuedForm(stream, text))) return WRITTEN;
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
    const resolve = this.#resolve;
    const reject = this.#reject;
    const posted = this.#posted;
    const firstId = this.#firstId;
    const moreIds = this.#moreIds;
    this.#pending = undefined;
    this.#batch = undefined;
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#posted = false;
    this.#firstId = undefined;
    this.#moreIds = undefined;
    const written = this.#writeNow(text);
    // Handed to the stream at once (nearly always): nothing to wait for.
    if (written === WRITTEN) {
      resolve?.();
      return;
    }
    written.then(resolve, (error: Error) => {
      reject?.(error);
      if (firstId !== undefined) this.#onpostfailed?.(error, [firstId, ...(moreIds ?? [])]);
      if (posted) this.#onerror?.(error);
    });
  }

  readonly #flushTick = () => {
    this.#sparse = this.#tickMessages <= 1;
    this.#tickMessages = 0;
    this.flush();
  };
}
