/**
 * A message's line as UTF-8 bytes, written straight from its `messagePieces` into a chunk of memory outside
 * the V8 heap. Joined as strings, each piece of a request (envelope, id, method, params, tail, newline) made a
 * string object of its own, and the tick's batch of lines another on top, which a write then flattened and
 * encoded: about 420 bytes of the V8 heap per request, where its params' text (48 bytes for a small call, kept
 * for a resend) is all this leaves (bench/NOTES-perf.md, the eleventh round).
 */
import { ENVELOPE_HEAD, type MessagePieces, methodMember } from '../../jsonrpc/serialise.js';

const HEAD = Buffer.from(ENVELOPE_HEAD, 'latin1');
const NEWLINE = 0x0a;

let memberOf: string | undefined;
let memberBytes = HEAD;

/** `methodMember(method)` as bytes, kept for the last method (a burst of calls repeats it). */
function methodMemberBytes(method: string): Buffer {
  if (method !== memberOf) {
    memberBytes = Buffer.from(methodMember(method), 'utf8');
    memberOf = method;
  }
  return memberBytes;
}

/**
 * The most bytes the line of these pieces can take: 3 per UTF-16 unit of text (a surrogate pair is 4 bytes for
 * 2 units), 6 per unit of a JSON string the envelope makes (`\u001f` for a control character), and the newline.
 */
export function lineBound(pieces: MessagePieces): number {
  let bound = (pieces.text.length + pieces.tail.length) * 3 + 1;
  if (pieces.envelope) {
    const id = pieces.id;
    bound += HEAD.length + (typeof id === 'string' ? id.length * 6 + 2 : 24) + pieces.method.length * 6 + 24;
  }
  return bound;
}

/**
 * Writes the line of `pieces` into `chunk` at `at`, which has `lineBound(pieces)` bytes free; returns where it
 * ends. A request's non-negative id is written as its digits: no string for it, and none in V8's number-string
 * cache (bench/NOTES-perf.md, the eighth round). The characters `cut` leaves out are ASCII (a placeholder's or a
 * closing brace), a byte each.
 */
export function encodeLine(chunk: Buffer, at: number, pieces: MessagePieces): number {
  let end = at;
  if (pieces.envelope) {
    chunk.set(HEAD, end);
    end += HEAD.length;
    const id = pieces.id;
    end =
      typeof id === 'number' && id >= 0
        ? writeDigits(chunk, end, id)
        : end + chunk.write(JSON.stringify(id), end);
    const member = methodMemberBytes(pieces.method);
    chunk.set(member, end);
    end += member.length;
  }
  end += chunk.write(pieces.text, end) - pieces.cut;
  const tail = pieces.tail;
  if (tail.length === 1 && tail.charCodeAt(0) < 0x80) chunk[end++] = tail.charCodeAt(0);
  else if (tail !== '') {
    const bytes = tailBytes(tail);
    chunk.set(bytes, end);
    end += bytes.length;
  }
  chunk[end++] = NEWLINE;
  return end;
}

let bytesOf: string | undefined;
let lastTailBytes = HEAD;

/**
 * A tail as bytes, kept for the last one: a `serialisedOnce` `_meta`'s, the same string in every message that
 * ends with it, is encoded once and copied after that.
 */
function tailBytes(tail: string): Buffer {
  if (tail !== bytesOf) {
    lastTailBytes = Buffer.from(tail, 'utf8');
    bytesOf = tail;
  }
  return lastTailBytes;
}

/** The decimal digits of a non-negative safe integer. */
function writeDigits(chunk: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest - (rest % 10)) / 10) digits++;
  let rest = value;
  for (let index = at + digits - 1; index >= at; index--) {
    const digit = rest % 10;
    chunk[index] = 0x30 + digit;
    rest = (rest - digit) / 10;
  }
  return at + digits;
}
