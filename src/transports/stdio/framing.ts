import { isAscii } from 'node:buffer';
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONRPCMessage, RequestId } from '../../jsonrpc/messages.js';
import { RepeatedMetaParser } from '../../jsonrpc/repeated-meta.js';
import { stringifyMessage } from '../../jsonrpc/serialise.js';
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
 * From this many bytes, a run of complete ASCII lines is parsed from its bytes (`#asciiLines`): three quarters of a
 * full read (libuv reads a pipe 64 KiB at a time), so the peer had more written than this side had read.
 */
const BACKLOG_RUN_BYTES = 48 * 1024;

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
        const end = this.#asciiLines(chunk, start, newline);
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
   * within the cap (no line can pass it): one check for the whole run. A run read while the peer is ahead (a
   * backlog: a burst of calls, or of answers) is parsed line by line from its bytes
   * (`RepeatedMetaParser.parseAscii`), each decoded no further than it needs: less than half the garbage, and a
   * burst's garbage is what makes V8 grow its young generation (bench/NOTES-perf.md, the eleventh round). Any
   * shorter run is decoded as one string and sliced: fewer native calls, about 10% more calls a second with 64
   * in flight. Returns where the unfinished rest begins, or -1 to leave the run to the per-line path.
   */
  #asciiLines(chunk: Buffer, start: number, newline: number): number {
    // A chunk that ends with the first newline found (one line, the usual read while traffic is sparse) needs no
    // second scan, and a run from the chunk's start is checked without a view of it (the newline is ASCII too).
    const last = newline === chunk.length - 1 ? newline : chunk.lastIndexOf(NEWLINE);
    if (last - start > this.#maxLineBytes) return -1;
    if (!isAscii(start === 0 && last === chunk.length - 1 ? chunk : chunk.subarray(start, last))) return -1;
    if (last - start < BACKLOG_RUN_BYTES) {
      const text = chunk.toString('latin1', start, last);
      for (let from = 0; from <= text.length; ) {
        let to = text.indexOf('\n', from);
        if (to === -1) to = text.length;
        const end = to > from && text.charCodeAt(to - 1) === 0x0d ? to - 1 : to;
        if (end > from) this.#parse(text.slice(from, end));
        from = to + 1;
      }
      return last + 1;
    }
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
    for (let from = start; from <= last; ) {
      const to = chunk.indexOf(NEWLINE, from);
      const end = to > from && chunk[to - 1] === 0x0d ? to - 1 : to;
      if (end > from) this.#parseAscii(chunk, view, from, end);
      from = to + 1;
    }
    return last + 1;
  }

  #parseAscii(chunk: Buffer, view: DataView, start: number, end: number): void {
    let value: unknown;
    try {
      value = this.#parser.parseAscii(chunk, view, start, end);
    } catch (error) {
      this.#events.onbadline(error as Error, clip(chunk.toString('latin1', start, end)));
      return;
    }
    this.#events.onvalue(value);
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

export { LineWriter } from './line-writer.js';
