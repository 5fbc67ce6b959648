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

export class RepeatedMetaParser {
  /** `"_meta":<text>}}`: how a line ends whose last member's last member is the known `_meta`. */
  #tail: string | undefined;
  #meta: Readonly<Record<string, unknown>> | undefined;
  /** The last sampled line's `_meta` tail: learnt when the next sampled line ends the same way. */
  #candidate: string | undefined;
  #misses = 0;
  readonly #marker = `marker-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  readonly #markerTail = `${KEY}"${this.#marker}"}}`;
  /** The same, closing only the result (`#resultWithKnownMeta`). */
  readonly #resultMarkerTail = `${KEY}"${this.#marker}"}`;

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
      const value = this.#withKnownMeta(text, tail);
      if (value !== undefined) return value;
    }
    const value: unknown = JSON.parse(text);
    if (this.#misses === 0) this.#learn(text, value);
    this.#misses = (this.#misses + 1) % LEARN_EVERY;
    return value;
  }

  /**
   * The line parsed with a marker for its `_meta`, then the known value put where the marker landed. The marker is
   * a string this process made up, so the one member holding it is the one the known tail's text was (a peer
   * cannot send it, whatever else it nests or repeats); it is the last member of the message's last member, whose
   * value JSON.parse keeps. Undefined when the line did not parse so.
   */
  #withKnownMeta(text: string, tail: string): unknown {
    const resultAt = resultStart(text);
    if (resultAt !== -1) return this.#resultWithKnownMeta(text, resultAt, tail);
    let value: unknown;
    try {
      value = JSON.parse(`${text.slice(0, text.length - tail.length)}${this.#markerTail}`);
    } catch {
      return undefined;
    }
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
   * A result response in the compact form (`{"jsonrpc":"2.0","id":<digits>,"result":`, compared above): only its
   * result is parsed, with the marker for its `_meta`, and the message made from the compared members, as
   * JSON.parse would make it. The line's last `}` (in the known tail) closes the message.
   */
  #resultWithKnownMeta(text: string, resultAt: number, tail: string): unknown {
    let result: unknown;
    try {
      result = JSON.parse(`${text.slice(resultAt, text.length - tail.length)}${this.#resultMarkerTail}`);
    } catch {
      return undefined;
    }
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
    this.#meta = serialisedOnce(meta);
    this.#candidate = undefined;
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
