import { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { LocalError } from '../../jsonrpc/errors.js';
import type { RequestId } from '../../jsonrpc/messages.js';
import { messagePieces, takeWrittenParams } from '../../jsonrpc/serialise.js';
import { encodeLine, lineBound } from './line-bytes.js';

const WRITTEN: Promise<void> = Promise.resolve();

/** Read once: the global `process` is an accessor on globalThis, a getter call at every use. */
const { nextTick } = process;

/**
 * A tick's batch goes out as soon as it holds this many bytes: when one tick makes many messages (a chunk of
 * answers each starting the next request, a burst of calls), the peer, a process often on the other core,
 * starts on the first slice while this side is still making the rest, instead of both taking turns.
 */
const SLICE_BYTES = 8 * 1024;

/**
 * The slice while the stream is past its high-water mark: the peer has the queue to read, so a smaller slice
 * would not start it sooner, and a burst queued as few large writes left less resident memory behind it than
 * as many 8 KiB ones (bench/NOTES-perf.md, "seventh round").
 */
const QUEUED_SLICE_BYTES = 128 * 1024;

/**
 * Lines are encoded into chunks of this size, batch after batch, each batch written as a view of its bytes; a
 * stream past its high-water mark gets chunks of the larger size, which hold a queued slice.
 */
const CHUNK_BYTES = 16 * 1024;
const QUEUED_CHUNK_BYTES = 2 * QUEUED_SLICE_BYTES;

const NO_BYTES = Buffer.alloc(0);

/**
 * Writes framed messages. Every message sent in one tick is coalesced into one write from process.nextTick,
 * which runs once the current callback and the promise jobs it started are done: with many requests in flight
 * that is one syscall (and one wake-up of the peer) per tick instead of one per message; a batch that reaches
 * `SLICE_BYTES` is written at once, the rest of the tick's messages making the next. While traffic is sparse
 * (the last tick carried one message) a tick's first message is written at once: the peer starts on it while
 * this side goes on with the tick (an agent's turn sends one call to each of several servers), and only the
 * tick's later messages wait for its end. A send's promise settles when its bytes were handed to the stream
 * (after 'drain' when the stream's buffer was full), as with a direct write, and rejects if the stream closes
 * first. `post` queues a message the same way without a promise: a batch that only posted makes none, and a
 * failed write of it is reported once, the ids of the requests it held to `onpostfailed`, other posted
 * messages to `onerror`.
 *
 * Lines are UTF-8 bytes from the start (src/transports/stdio/line-bytes.ts), outside the V8 heap: a burst's
 * batches waiting for a slow peer are memory their write frees, not strings surviving scavenge after scavenge
 * (which made V8 grow its young generation for good).
 */
export class LineWriter {
  readonly #stream: Writable;
  /**
   * A socket (a pipe to a child, stdout as a pipe or a terminal) hands a write to libuv, which either writes it
   * at once or keeps the bytes until it can: when nothing is left queued right after a write, no batch of the
   * chunk is still referenced, and the chunk is written over from its start. Any other stream may keep a batch
   * it acknowledged (a PassThrough passes the same bytes on), so its chunks are never written twice.
   */
  readonly #reusesChunk: boolean;
  readonly #onerror: ((error: Error) => void) | undefined;
  readonly #onpostfailed: ((error: Error, ids: readonly RequestId[]) => void) | undefined;
  /** The batch is `#chunk[#start, #end)`; the bytes after it are free. */
  #chunk: Buffer = NO_BYTES;
  #start = 0;
  #end = 0;
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
    this.#reusesChunk = stream instanceof Socket;
    this.#onerror = onerror;
    this.#onpostfailed = onpostfailed;
  }

  write(message: unknown): Promise<void> {
    try {
      this.#encode(message);
    } catch (error) {
      // Nothing was written; a throw here would escape every caller that only handles the promise.
      return Promise.reject(error);
    }
    // The batch's promise before the tick's bookkeeping, which may write the batch at once (a full slice).
    const batch = (this.#batch ??= new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    }));
    this.#queued();
    return batch;
  }

  /**
   * As `write`, for a sender that only needs to hear of a failure (a throw if unframable): a request's (`id`
   * given) goes to `onpostfailed` when there is one, any other to `onerror`. Returns a request's params text as
   * the line holds it (`takeWrittenParams`), when its envelope was written around it.
   */
  post(message: unknown, id?: RequestId): string | undefined {
    this.#encode(message);
    const params = takeWrittenParams();
    // Counted in the batch before the tick's bookkeeping, which may write the batch at once (a full slice).
    if (id === undefined || this.#onpostfailed === undefined) this.#posted = true;
    else if (this.#firstId === undefined) this.#firstId = id;
    else (this.#moreIds ??= []).push(id);
    this.#queued();
    return params;
  }

  /**
   * Serialises the message and adds its line to the batch (throws, adding nothing, if it cannot be serialised).
   * Without room left in the chunk, the batch so far moves to a new one (less than a slice: a copy), so a slice
   * is never cut short by where a chunk ends.
   */
  #encode(message: unknown): void {
    const pieces = messagePieces(message);
    const bound = lineBound(pieces);
    if (this.#chunk.length - this.#end < bound) {
      const batch = this.#end - this.#start;
      const size = this.#stream.writableNeedDrain === true ? QUEUED_CHUNK_BYTES : CHUNK_BYTES;
      const chunk = Buffer.allocUnsafeSlow(Math.max(size, batch + bound));
      if (batch > 0) this.#chunk.copy(chunk, 0, this.#start, this.#end);
      this.#chunk = chunk;
      this.#start = 0;
      this.#end = batch;
    }
    this.#end = encodeLine(this.#chunk, this.#end, pieces);
  }

  /** A line joined the batch: the tick's flush is scheduled, or the batch written at once. */
  #queued(): void {
    if (this.#tickMessages++ === 0) {
      nextTick(this.#flushTick);
      if (this.#sparse) {
        this.flush();
        return;
      }
    }
    const length = this.#end - this.#start;
    if (length >= SLICE_BYTES && (length >= QUEUED_SLICE_BYTES || this.#stream.writableNeedDrain !== true))
      this.flush();
  }

  #writeNow(bytes: Buffer): Promise<void> {
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded)
      return Promise.reject(
        new LocalError('connection_closed', 'the stream closed before the message was written'),
      );
    const below = stream.write(bytes);
    if (this.#reusesChunk && stream.writableLength === 0 && this.#end === this.#start) {
      this.#start = 0;
      this.#end = 0;
    }
    if (below) return WRITTEN;
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
    if (this.#end === this.#start) return;
    // A view of the batch's bytes: the stream may hold it until written; later lines go after it.
    const bytes = this.#chunk.subarray(this.#start, this.#end);
    this.#start = this.#end;
    const resolve = this.#resolve;
    const reject = this.#reject;
    const posted = this.#posted;
    const firstId = this.#firstId;
    const moreIds = this.#moreIds;
    this.#batch = undefined;
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#posted = false;
    this.#firstId = undefined;
    this.#moreIds = undefined;
    const written = this.#writeNow(bytes);
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
    // A large chunk is not kept past its need: its bytes written so far stay resident while it lives. A queued
    // burst's is kept while the stream is still past its mark (its next batches go there); one made for a
    // message larger than that is dropped at once.
    const size = this.#chunk.length;
    if (size > QUEUED_CHUNK_BYTES || (size > CHUNK_BYTES && this.#stream.writableNeedDrain !== true))
      this.#chunk = NO_BYTES;
  };
}
