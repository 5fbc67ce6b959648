/**
 * JSON text of incoming messages to values, with the `_meta` that ends most messages parsed once per peer. A
 * 2026-07-28 client ends every request with the same `_meta` (protocolVersion, clientCapabilities, clientInfo: about
 * half of a tools/call's bytes and most of its parse, for the namespaced keys), a server every result with the same
 * serverInfo `_meta`. When a line ends with the `_meta` text of earlier lines, the rest is parsed with a marker in
 * its place and the value parsed before (deeply frozen: shared by every message that sent it) put there. The value
 * is the same as a whole parse would give; only its `_meta` is read-only. Nothing is skipped: every byte of the
 * line is still parsed or compared, and what the message holds is checked downstream as before.
 */
import { serialisedOnce } from './serialise.js';
import { isRecord } from '../util/record.js';

const KEY = '"_meta":';
/** Every how many lines that do not end with the known `_meta` one is looked at as the next to know. */
const LEARN_EVERY = 8;
/** A `_meta` text longer than this is never kept. */
const MAX_META_CHARS = 4096;
/**
 * Lines longer than this are parsed whole: the marked copy JSON.parse flattens would double a large result's
 * memory for a moment, to save a parse that is small beside the rest of it.
 */
const MAX_MARKED_CHARS = 64 * 1024;
/** Up to this many bytes a line is copied four bytes at a time in JS (`#marked`); a longer one by Buffer#copy. */
const LOOP_COPY_BYTES = 1024;

export class RepeatedMetaParser {
  /** `"_meta":<text>}}`: how a line ends whose last member's last member is the known `_meta`. */
  #tail: string | undefined;
  /** The same as UTF-8 bytes, compared with the end of a line not yet decoded (`parseAscii`). */
  #tailView: DataView | undefined;
  #meta: Readonly<Record<string, unknown>> | undefined;
  /** The last sampled line's `_meta` tail: learnt when the next sampled line ends the same way. */
  #candidate: string | undefined;
  #misses = 0;
  readonly #marker = `marker-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  readonly #markerTail = `${KEY}"${this.#marker}"}}`;
  /** The same, closing only the result (`#resultWithKnownMeta`): the marker tail less its last `}`. */
  readonly #resultMarkerTail = `${KEY}"${this.#marker}"}`;
  /**
   * Where `parseAscii` puts a line's text before the marker tail, which ends it: one copy of the bytes and one
   * string decoded from them, where slicing the line and joining the marker made three strings and a flattened
   * fourth. Grown as lines need, up to `MAX_MARKED_CHARS`.
   */
  #scratch: Buffer | undefined;
  #scratchView: DataView | undefined;

  /** JSON.parse(text), value for value; throws as JSON.parse does. */
  parse(text: string): unknown {
    const tail = this.#tail;
    if (
      tail !== undefined &&
      text.length > tail.length &&
      text.length <= MAX_MARKED_CHARS &&
      // A slice compared whole: on a line sliced from a chunk's text, endsWith reads it a character at a time
      // (about 90 ns for a client's `_meta`), string equality compares the bytes at once.
      text.slice(text.length - tail.length) === tail
    ) {
      const cut = text.length - tail.length;
      const resultAt = resultStart(text);
      const value =
        resultAt === -1
          ? this.#placed(markedParse(`${text.slice(0, cut)}${this.#markerTail}`))
          : this.#placedResult(markedParse(`${text.slice(resultAt, cut)}${this.#resultMarkerTail}`));
      if (value !== undefined) return value;
    }
    return this.#parseWhole(text);
  }

  /**
   * JSON.parse of the line `bytes[start, end)`, all ASCII, value for value; throws as JSON.parse does. A line
   * ending with the known `_meta` is decoded only up to it. `view` is a DataView of `bytes` (one per chunk):
   * the tail is compared and the line copied four bytes at a time in JS, where Buffer#compare and Buffer#copy
   * each cost a native call and argument checks, and Buffer#copy a typed array made per call.
   */
  parseAscii(bytes: Buffer, view: DataView, start: number, end: number): unknown {
    const tail = this.#tailView;
    const length = end - start;
    if (
      tail !== undefined &&
      length > tail.byteLength &&
      length <= MAX_MARKED_CHARS &&
      sameBytes(view, end - tail.byteLength, tail)
    ) {
      const cut = end - tail.byteLength;
      const resultAt = resultStartIn(bytes, view, start, cut);
      const value =
        resultAt === -1
          ? this.#placed(markedParse(this.#marked(bytes, view, start, cut, 0)))
          : this.#placedResult(markedParse(this.#marked(bytes, view, resultAt, cut, 1)));
      if (value !== undefined) return value;
    }
    return this.#parseWhole(bytes.toString('latin1', start, end));
  }

  #parseWhole(text: string): unknown {
    const value: unknown = JSON.parse(text);
    if (this.#misses === 0) this.#learn(text, value);
    this.#misses = (this.#misses + 1) % LEARN_EVERY;
    return value;
  }

  /** `bytes[from, to)` and then the marker tail, less its last `less` characters, as one string. */
  #marked(bytes: Buffer, view: DataView, from: number, to: number, less: number): string {
    const tailBytes = this.#markerTail.length;
    const needed = to - from + tailBytes;
    let scratch = this.#scratch;
    if (scratch === undefined || scratch.length < needed) {
      scratch = Buffer.allocUnsafeSlow(
        Math.min(MAX_MARKED_CHARS + tailBytes, Math.max(needed, 2 * (scratch?.length ?? 1024))),
      );
      scratch.write(this.#markerTail, scratch.length - tailBytes, 'latin1');
      this.#scratch = scratch;
      this.#scratchView = viewOf(scratch);
    }
    const at = scratch.length - needed;
    if (to - from > LOOP_COPY_BYTES) bytes.copy(scratch, at, from, to);
    else copyBytes(view, from, to, this.#scratchView as DataView, at);
    return scratch.toString('latin1', at, scratch.length - less);
  }

  /**
   * The value parsed with a marker for its `_meta`, the known value put where the marker landed. The marker is a
   * string this process made up, so the one member holding it is the one the known tail's text was (a peer
   * cannot send it, whatever else it nests or repeats); it is the last member of the message's last member, whose
   * value JSON.parse keeps. Undefined when the line did not parse so.
   */
  #placed(value: unknown): unknown {
    if (!isRecord(value)) return undefined;
    for (const key in value) {
      const member = value[key];
      if (isRecord(member) && member._meta === this.#marker) {
        member._meta = this.#meta;
        return value;
      }
    }
    return undefined;
  }

  /**
   * A result response in the compact form (`{"jsonrpc":"2.0","id":<digits>,"result":`, compared by
   * `resultStart`): only its result was parsed, with the marker for its `_meta`, and the message is made from the
   * compared members, as JSON.parse would make it. The line's last `}` (in the known tail) closes the message.
   */
  #placedResult(result: unknown): unknown {
    if (!isRecord(result) || result._meta !== this.#marker) return undefined;
    result._meta = this.#meta;
    return { jsonrpc: '2.0', id: parsedId, result };
  }

  /** Remembers this line's `_meta` tail; knows it once a second sampled line in a row ends with it. */
  #learn(text: string, value: unknown): void {
    const holder = lastMember(value);
    if (holder === undefined || !isRecord(holder._meta) || lastKey(holder) !== '_meta') return;
    const at = text.lastIndexOf(KEY);
    if (at === -1 || text.length - at > MAX_META_CHARS + KEY.length + 2 || !text.endsWith('}}')) return;
    const tail = text.slice(at);
    if (tail !== this.#candidate) {
      this.#candidate = tail;
      return;
    }
    let meta: unknown;
    try {
      meta = JSON.parse(tail.slice(KEY.length, -2));
    } catch {
      // `"_meta":` inside the `_meta` itself: the text after its last occurrence is no JSON value.
      return;
    }
    if (!isRecord(meta)) return;
    this.#tail = tail;
    this.#tailView = viewOf(Buffer.from(tail, 'utf8'));
    this.#meta = serialisedOnce(meta);
    this.#candidate = undefined;
  }
}

/** Whether `view` holds the bytes of `expected` from `at` (within its bounds). */
function sameBytes(view: DataView, at: number, expected: DataView): boolean {
  const length = expected.byteLength;
  if (at < 0 || at + length > view.byteLength) return false;
  let index = 0;
  for (; index + 4 <= length; index += 4)
    if (view.getInt32(at + index) !== expected.getInt32(index)) return false;
  for (; index < length; index++) if (view.getUint8(at + index) !== expected.getUint8(index)) return false;
  return true;
}

/** Copies `view[from, to)` into `target` at `at`. */
function copyBytes(view: DataView, from: number, to: number, target: DataView, at: number): void {
  const length = to - from;
  let index = 0;
  for (; index + 4 <= length; index += 4) target.setInt32(at + index, view.getInt32(from + index));
  for (; index < length; index++) target.setUint8(at + index, view.getUint8(from + index));
}

/** JSON.parse of a marked text; undefined when it is no JSON (the line is then parsed whole, to throw as it does). */
function markedParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const RESPONSE_HEAD = '{"jsonrpc":"2.0","id":';
const RESULT_KEY = ',"result":';
/** Ids of more digits than this are left to JSON.parse (every integer up to 15 digits is exact as a double). */
const MAX_ID_DIGITS = 15;
/** The id `resultStart` read last. */
let parsedId = 0;

/**
 * Where the result of a result response starts, when the line starts as one in the compact form every
 * implementation writes: `{"jsonrpc":"2.0","id":<a JSON integer, not negative>,"result":`, its id left in
 * `parsedId`. -1 for any other line (parsed as a whole).
 */
function resultStart(text: string): number {
  if (!text.startsWith(RESPONSE_HEAD)) return -1;
  const from = RESPONSE_HEAD.length;
  let at = from;
  let id = 0;
  // JSON allows no leading zero: a 0 is the whole number.
  if (text.charCodeAt(at) === 0x30) at++;
  else
    for (
      let digit = text.charCodeAt(at) - 0x30;
      digit >= 0 && digit <= 9;
      digit = text.charCodeAt(at) - 0x30
    ) {
      id = id * 10 + digit;
      at++;
    }
  if (at === from || at - from > MAX_ID_DIGITS || !text.startsWith(RESULT_KEY, at)) return -1;
  parsedId = id;
  return at + RESULT_KEY.length;
}

const RESPONSE_HEAD_VIEW = viewOf(Buffer.from(RESPONSE_HEAD, 'latin1'));
const RESULT_KEY_VIEW = viewOf(Buffer.from(RESULT_KEY, 'latin1'));

function viewOf(bytes: Buffer): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * As `resultStart`, for the ASCII line `bytes[start, end)` (`view` of the same bytes): an index into `bytes`. A
 * request line differs from a response's 3 bytes after its id.
 */
function resultStartIn(bytes: Buffer, view: DataView, start: number, end: number): number {
  if (!sameBytes(view, start, RESPONSE_HEAD_VIEW)) return -1;
  const from = start + RESPONSE_HEAD_VIEW.byteLength;
  let at = from;
  let id = 0;
  // JSON allows no leading zero: a 0 is the whole number.
  if (bytes[at] === 0x30) at++;
  else
    for (
      let digit = (bytes[at] ?? 0) - 0x30;
      digit >= 0 && digit <= 9 && at < end;
      digit = (bytes[at] ?? 0) - 0x30
    ) {
      id = id * 10 + digit;
      at++;
    }
  const keyEnd = at + RESULT_KEY_VIEW.byteLength;
  if (at === from || at - from > MAX_ID_DIGITS || keyEnd > end || !sameBytes(view, at, RESULT_KEY_VIEW))
    return -1;
  parsedId = id;
  return keyEnd;
}

/** The value of an object's last member, when that is an object too (params or result of a message): a hint. */
function lastMember(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const key = lastKey(value);
  const member = key === undefined ? undefined : value[key];
  return isRecord(member) ? member : undefined;
}

function lastKey(record: Record<string, unknown>): string | undefined {
  let last: string | undefined;
  for (const key in record) last = key;
  return last;
}
