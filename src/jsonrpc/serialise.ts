/**
 * JSON text of outgoing messages, once, with a way out for a response JSON cannot express: the internal error
 * `unserialisableAnswer` makes for its id takes its place.
 */
import { LocalError } from './errors.js';
import { type JSONRPCErrorResponse, type RequestId, isRequestId } from './messages.js';
import { isRecord } from '../util/record.js';

/** What JSON.stringify throws for values JSON cannot express: nesting past the stack, cycles, BigInt. */
export function isUnserialisable(error: unknown): boolean {
  return (
    error instanceof RangeError || (error instanceof TypeError && /circular|BigInt/i.test(error.message))
  );
}

/**
 * How a message ends whose params' or result's last member is a `serialisedOnce` object: after another member,
 * `,"_meta":<its JSON text>}}`; as the only member, the same without the comma. Kept for each such object by
 * identity; a spliced message is its text up to the placeholder, then one of these.
 */
interface MetaTail {
  readonly member: string;
  readonly lone: string;
}

const metaTails = new WeakMap<object, MetaTail>();

/**
 * A deeply frozen copy of a JSON object that goes into many messages unchanged (the `_meta` a 2026-07-28 client
 * puts in every request, the serverInfo `_meta` of every result), with its JSON text computed once:
 * `stringifyMessage` splices that text in instead of serialising the object again. A copy, so later changes to
 * the caller's object cannot make the text stale.
 */
export function serialisedOnce<T extends object>(value: T): Readonly<T> {
  const text = JSON.stringify(value);
  const copy = deepFreeze(JSON.parse(text) as T);
  metaTails.set(copy, { member: `,"_meta":${text}}}`, lone: `"_meta":${text}}}` });
  return copy;
}

/** True for an object `serialisedOnce` made: plain JSON data, deeply frozen, so what is read from it holds. */
export function isSerialisedOnce(value: unknown): boolean {
  return typeof value === 'object' && value !== null && metaTails.has(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** Where a spliced message's `_meta` placeholder must be: the last member of its params or result. */
const META_TAIL = ',"_meta":null}}';
/** The same placeholder as the only member (an empty result's `_meta`): no comma before it. */
const LONE_META_TAIL = '{"_meta":null}}';

/**
 * An outgoing message's JSON text as the pieces it is written from, in order: for a request, `ENVELOPE_HEAD`,
 * its id's JSON and `methodMember(method)` (`envelope` true); then `text` less its last `cut` characters; then
 * `tail`. Joined, they are what JSON.stringify writes for the message; a writer of bytes copies them one after
 * another, without the strings joining them would make. `cut` and `tail` are ASCII unless the tail is a
 * `serialisedOnce` text's.
 */
export interface MessagePieces {
  envelope: boolean;
  id: RequestId;
  method: string;
  text: string;
  cut: number;
  tail: string;
}

/** `messagePieces`' answer, filled again by every call: read it before serialising another message. */
const pieces: MessagePieces = { envelope: false, id: 0, method: '', text: '', cut: 0, tail: '' };

function piecesOf(envelope: boolean, id: RequestId, method: string, text: string, cut: number, tail: string) {
  pieces.envelope = envelope;
  pieces.id = id;
  pieces.method = method;
  pieces.text = text;
  pieces.cut = cut;
  pieces.tail = tail;
  return pieces;
}

/**
 * The pieces of a message whose params' or result's `_meta` is a `serialisedOnce` object and the last member of
 * both (as Connection and the server's codecs build them): serialised with a placeholder, the cached text put in
 * its place. Undefined when the message is not shaped so; the caller serialises it whole.
 */
function splicedPieces(message: unknown): MessagePieces | undefined {
  if (!isRecord(message)) return undefined;
  const member = message.result === undefined ? 'params' : 'result';
  const holder = message[member];
  if (!isRecord(holder) || !isRecord(holder._meta) || Object.isFrozen(holder)) return undefined;
  const meta = holder._meta;
  const metaTail = metaTails.get(meta);
  if (metaTail === undefined || lastKey(message) !== member || lastKey(holder) !== '_meta') return undefined;
  holder._meta = null;
  let json: string;
  try {
    json = JSON.stringify(message);
  } finally {
    holder._meta = meta;
  }
  if (json.endsWith(META_TAIL)) return piecesOf(false, 0, '', json, META_TAIL.length, metaTail.member);
  if (json.endsWith(LONE_META_TAIL))
    return piecesOf(false, 0, '', json, LONE_META_TAIL.length - 1, metaTail.lone);
  return undefined;
}

/**
 * The `_meta` of a request's params that its text leaves out and its line splices in: a `serialisedOnce` one, the
 * params' last member, when the params can be changed (it is set to undefined while they are serialised).
 */
export function sharedMetaOf(params: unknown): object | undefined {
  if (!isRecord(params)) return undefined;
  const meta = params._meta;
  if (meta === undefined || !metaTails.has(meta as object) || Object.isFrozen(params)) return undefined;
  return lastKey(params) === '_meta' ? (meta as object) : undefined;
}

/** The params text of the request last serialised around it; undefined after any other message. */
let writtenParams: string | undefined;

/**
 * The JSON text of the params of the request `stringifyMessage` or `messagePieces` last serialised, less the
 * `sharedMetaOf` them; undefined when that message was serialised whole. The line holds the same text, so a
 * request sent again from it (JSON.parse, the shared `_meta` put back) sends what went on the wire.
 */
export function takeWrittenParams(): string | undefined {
  const text = writtenParams;
  writtenParams = undefined;
  return text;
}

const ENVELOPE_KEYS = ['jsonrpc', 'id', 'method', 'params'];
export const ENVELOPE_HEAD = '{"jsonrpc":"2.0","id":';

/**
 * A request `{jsonrpc: "2.0", id, method, params}` (those members, in that order, and no more; a safe-integer or
 * string id; object params; no toJSON on either) is written as its envelope around its params' text, which is
 * JSON.stringify's of the params alone (with a `sharedMetaOf` left out, its cached text spliced in at the end):
 * the same bytes JSON.stringify writes for the message, the params serialised once. Undefined for any other
 * message.
 */
function requestPieces(message: unknown): MessagePieces | undefined {
  if (!isRecord(message) || typeof message.method !== 'string' || message.jsonrpc !== '2.0') return undefined;
  const { id, params } = message;
  if (typeof id === 'number' ? !Number.isSafeInteger(id) : typeof id !== 'string') return undefined;
  const requestId = id as RequestId;
  if (!isRecord(params) || 'toJSON' in message || 'toJSON' in params) return undefined;
  let index = 0;
  for (const key in message) if (ENVELOPE_KEYS[index++] !== key) return undefined;
  if (index !== ENVELOPE_KEYS.length) return undefined;
  const meta = sharedMetaOf(params);
  let text: string;
  if (meta === undefined) text = JSON.stringify(params);
  else {
    params._meta = undefined;
    try {
      text = JSON.stringify(params);
    } finally {
      params._meta = meta;
    }
  }
  writtenParams = text;
  if (meta === undefined) return piecesOf(true, requestId, message.method, text, 0, '}');
  const metaTail = metaTails.get(meta) as MetaTail;
  return piecesOf(
    true,
    requestId,
    message.method,
    text,
    1,
    text.length === 2 ? metaTail.lone : metaTail.member,
  );
}

let lastMethod: string | undefined;
let lastMethodMember = '';

/** `,"method":<its JSON>,"params":`, kept for the last method (a burst of calls repeats it). */
export function methodMember(method: string): string {
  if (method !== lastMethod) {
    lastMethodMember = `,"method":${JSON.stringify(method)},"params":`;
    lastMethod = method;
  }
  return lastMethodMember;
}

function lastKey(record: Record<string, unknown>): string | undefined {
  let last: string | undefined;
  for (const key in record) last = key;
  return last;
}

/**
 * The pieces of an outgoing message's JSON text (the object is shared: read it before serialising another). A
 * response JSON cannot express is replaced by the internal error `unserialisableAnswer` makes for its id; any
 * other message that cannot be serialised throws a LocalError. A request's params text, when its envelope is
 * written around it, is then `takeWrittenParams()`'s.
 */
export function messagePieces(message: unknown): MessagePieces {
  writtenParams = undefined;
  try {
    return (
      requestPieces(message) ??
      splicedPieces(message) ??
      piecesOf(false, 0, '', JSON.stringify(message), 0, '')
    );
  } catch (error) {
    const answer = unserialisableAnswer(message, error);
    if (!answer)
      throw new LocalError(
        'protocol_error',
        `the message could not be serialised: ${(error as Error).message}`,
      );
    return piecesOf(false, 0, '', JSON.stringify(answer), 0, '');
  }
}

/**
 * JSON text of an outgoing message: its `messagePieces` joined. Few pieces: each concatenation is a string
 * object of its own until the text is written. A request's id goes through JSON.stringify, not `${id}`: V8 keeps
 * a number converted to a string in its number-string cache, an old-space table, so every id's string survived
 * the scavenges and was promoted (3 MB more old space and 2-16 MB more peak RSS over a 64-in-flight run,
 * bench/NOTES-perf.md "eighth round").
 */
export function stringifyMessage(message: unknown): string {
  const { envelope, id, method, text, cut, tail } = messagePieces(message);
  const body = cut === 0 ? text : text.slice(0, -cut);
  if (!envelope) return tail === '' ? body : body + tail;
  return ENVELOPE_HEAD + JSON.stringify(id) + methodMember(method) + body + tail;
}

/**
 * The answer to send instead of a response JSON cannot express (a handler's result nested past the stack,
 * circular, holding a BigInt): an internal error for the same id, so the peer is not left waiting. Undefined
 * for anything that is not such a response.
 */
export function unserialisableAnswer(message: unknown, error: unknown): JSONRPCErrorResponse | undefined {
  if (!isUnserialisable(error) || !isRecord(message) || !isRequestId(message.id)) return undefined;
  if (!('result' in message) && !('error' in message)) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32603, message: `the result could not be serialised: ${(error as Error).message}` },
  };
}
