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
