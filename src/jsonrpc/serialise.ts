/**
 * JSON text of outgoing messages, once, with a way out for a response JSON cannot express: the internal error
 * `unserialisableAnswer` makes for its id takes its place.
 */
import { LocalError } from './errors.js';
import { type JSONRPCErrorResponse, isRequestId } from './messages.js';
import { isRecord } from '../util/record.js';

/** What JSON.stringify throws for values JSON cannot express: nesting past the stack, cycles, BigInt. */
export function isUnserialisable(error: unknown): boolean {
  return (
    error instanceof RangeError || (error instanceof TypeError && /circular|BigInt/i.test(error.message))
  );
}

/**
 * For each object `serialisedOnce` made, by identity: how a message whose params' or result's last member it is
 * ends, `"_meta":<its JSON text>}}` (one string, so a spliced message is one concatenation).
 */
const metaTails = new WeakMap<object, string>();

/**
 * A deeply frozen copy of a JSON object that goes into many messages unchanged (the `_meta` a 2026-07-28 client
 * puts in every request, the serverInfo `_meta` of every result), with its JSON text computed once:
 * `stringifyMessage` splices that text in instead of serialising the object again. A copy, so later changes to
 * the caller's object cannot make the text stale.
 */
export function serialisedOnce<T extends object>(value: T): Readonly<T> {
  const text = JSON.stringify(value);
  const copy = deepFreeze(JSON.parse(text) as T);
  metaTails.set(copy, `"_meta":${text}}}`);
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
const META_TAIL = '"_meta":null}}';

/**
 * The message's text when its params' or result's `_meta` is a `serialisedOnce` object and the last member of
 * both (as Connection and the server's codecs build them): serialised with a placeholder, the cached text put in
 * its place. Undefined when the message is not shaped so; the caller serialises it whole.
 */
function splicedText(message: unknown): string | undefined {
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
  if (!json.endsWith(META_TAIL)) return undefined;
  return json.slice(0, -META_TAIL.length) + metaTail;
}

function lastKey(record: Record<string, unknown>): string | undefined {
  let last: string | undefined;
  for (const key in record) last = key;
  return last;
}

/**
 * JSON text of an outgoing message. A response JSON cannot express is replaced by the internal error
 * `unserialisableAnswer` makes for its id; any other message that cannot be serialised throws a LocalError.
 */
export function stringifyMessage(message: unknown): string {
  try {
    return splicedText(message) ?? JSON.stringify(message);
  } catch (error) {
    const answer = unserialisableAnswer(message, error);
    if (!answer)
      throw new LocalError(
        'protocol_error',
        `the message could not be serialised: ${(error as Error).message}`,
      );
    return JSON.stringify(answer);
  }
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
