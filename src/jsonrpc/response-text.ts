/**
 * The JSON text of a success response whose result ends with a `serialisedOnce` `_meta` (every 2026-07-28 result
 * a server's codec finishes), built from its parts: the envelope and the `_meta` are text already, so only the
 * result's other members are serialised, one JSON.stringify each. The bytes are exactly JSON.stringify's; any
 * message this cannot vouch for that way (another shape, a `toJSON` whose key argument would differ) is left to
 * the caller (undefined).
 */

/** `"key":` for result member names seen before (a server's results use a handful); bounded. */
const memberNames = new Map<string, string>();
const MAX_NAMES = 256;

function memberName(key: string): string {
  let text = memberNames.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (memberNames.size < MAX_NAMES) memberNames.set(key, text);
  }
  return text;
}

function hasToJSON(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

/** The text of an id as JSON writes it, or undefined for anything but a string or a finite number. */
function idText(id: unknown): string | undefined {
  if (typeof id === 'number') return Number.isFinite(id) ? String(id) : undefined;
  return typeof id === 'string' ? JSON.stringify(id) : undefined;
}

/**
 * `message` as JSON.stringify writes it, when it is `{ jsonrpc: '2.0', id, result }` (those members only, in that
 * order) and `result`'s last member is `_meta` whose text the caller has (`metaTail` of it, from its cache:
 * `"_meta":<text>}}`, after a comma when `comma`).
 * Undefined otherwise. Throws what JSON.stringify throws for a member JSON cannot express.
 */
export function responseText(
  message: Record<string, unknown>,
  metaTail: (meta: unknown, comma: boolean) => string | undefined,
): string | undefined {
  // JSON.stringify writes own members in this order; anything else (inherited, extra, reordered) is left to it.
  let at = 0;
  for (const key in message) {
    if (at > 2 || key !== ENVELOPE[at] || !Object.hasOwn(message, key)) return undefined;
    at++;
  }
  if (at !== 3 || message.jsonrpc !== '2.0' || hasToJSON(message)) return undefined;
  const id = idText(message.id);
  const result = message.result;
  if (id === undefined || !isPlainObject(result) || hasToJSON(result)) return undefined;
  let body = '';
  let last: string | undefined;
  let lastValue: unknown;
  for (const key in result) {
    if (!Object.hasOwn(result, key)) return undefined;
    if (last !== undefined) {
      const text = memberText(last, lastValue);
      if (text === null) return undefined;
      // Few pieces: every piece joined is one more string to allocate and flatten.
      if (text !== '') body = body === '' ? text : `${body},${text}`;
    }
    last = key;
    lastValue = result[key];
  }
  if (last !== '_meta') return undefined;
  const tail = metaTail(lastValue, body !== '');
  if (tail === undefined) return undefined;
  return `{"jsonrpc":"2.0","id":${id},"result":{${body}${tail}`;
}

const ENVELOPE = ['jsonrpc', 'id', 'result'];

/** An object JSON.stringify writes member by member: not an array, a boxed primitive or another exotic. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * `"key":<value>` as the member would appear inside its object; '' for a member JSON.stringify leaves out
 * (undefined, a function, a symbol); null when the value has a toJSON (called with the member's name inside
 * the object, with '' alone).
 */
function memberText(key: string, value: unknown): string | null {
  if (hasToJSON(value)) return null;
  const text: string | undefined = JSON.stringify(value);
  return text === undefined ? '' : `${memberName(key)}${text}`;
}
