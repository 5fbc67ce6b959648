import { ErrorCode } from '../../../jsonrpc/errors.js';
import { isRecord } from '../../../util/record.js';

type ParsedBody = { ok: true; value: unknown } | { ok: false; code: number; message: string };

/** Deeper nesting than this is refused: later consumers (schema validators, handlers) may recurse. */
const MAX_JSON_DEPTH = 256;

/**
 * Parses a request body once. JSON.parse keeps the LAST of duplicate keys while other parsers (a gateway that
 * routes on the body, a proxy that checks `Mcp-Name` against it) may keep the first, so a body with a duplicate
 * key, or with JSON-RPC / params members that differ only in case, is refused: the value we compare against the
 * headers and the value we dispatch are then the only value there is.
 */
export function parseBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: ErrorCode.ParseError, message: 'Parse error: the body is not valid JSON' };
  }
  // The exact scan runs only when the cheap check cannot rule a problem out (a hostile body, not a usual one).
  const problem = mayHaveKeyProblem(text, value) ? findKeyProblem(text) : undefined;
  if (problem !== undefined)
    return { ok: false, code: ErrorCode.InvalidRequest, message: `Invalid Request: ${problem}` };
  return { ok: true, value };
}

/**
 * False only when `text` (valid JSON, parsed to `value`) has none of the problems findKeyProblem reports: as
 * many key tokens in the text as own keys in the parsed objects (JSON.parse keeps one member of duplicate keys,
 * escapes decoded, so any repeat leaves fewer), no message or params member repeated ignoring case, and no
 * nesting past the limit. Allocates nothing for a body of lowercase message and params members.
 */
export function mayHaveKeyProblem(text: string, value: unknown): boolean {
  const keys = parsedKeyCount(value, 0);
  if (keys < 0 || keys !== keyTokenCount(text)) return true;
  if (!Array.isArray(value)) return messageKeysClash(value);
  for (const message of value) if (messageKeysClash(message)) return true;
  return false;
}

/** Key tokens of valid JSON text: the strings followed (after whitespace) by a colon. */
function keyTokenCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', at + 1)) {
    at = endOfString(text, at);
    let next = text.charCodeAt(at + 1);
    for (let skip = at + 2; next === 0x20 || next === 0x0a || next === 0x0d || next === 0x09; skip++)
      next = text.charCodeAt(skip);
    if (next === COLON) count++;
  }
  return count;
}

/** Own keys of every object in a parsed value; -1 when containers nest deeper than MAX_JSON_DEPTH. */
function parsedKeyCount(value: unknown, depth: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (depth >= MAX_JSON_DEPTH) return -1;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const inner = parsedKeyCount(item, depth + 1);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  for (const key in value) {
    const inner = parsedKeyCount((value as Record<string, unknown>)[key], depth + 1);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}

/** True when a message's members, or its params' members, may repeat ignoring case. */
function messageKeysClash(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (keysClash(message)) return true;
  const params = message.params;
  return isRecord(params) && keysClash(params);
}

/** Whether an object's (distinct) keys repeat ignoring case; all lowercase, the usual case, they cannot. */
function keysClash(object: object): boolean {
  let mixed = false;
  for (const key in object) {
    if (key.toLowerCase() !== key) {
      mixed = true;
      break;
    }
  }
  if (!mixed) return false;
  const seen = new Set<string>();
  for (const key in object) {
    const lower = key.toLowerCase();
    if (seen.has(lower)) return true;
    seen.add(lower);
  }
  return false;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const SMALL_OBJECT_KEYS = 16;

/** What a container is, for the key rules: messages and their params compare keys case-insensitively. */
enum Frame {
  Array = 0,
  Message = 1,
  Params = 2,
  Other = 3,
}

/** Index of the quote that closes the string opened at `start` (the text is valid JSON). */
function endOfString(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}

/**
 * One linear pass over text already known to be valid JSON: finds duplicate keys in any object (after decoding
 * escapes, so "\u006dethod" is "method"), case-insensitive repeats among a message's or its params' members, and
 * excessive nesting. Allocates nothing for one-key objects, an array for small ones, a Set for big ones.
 */
export function findKeyProblem(text: string): string | undefined {
  try {
    return scanKeys(text);
  } finally {
    // The stacks are shared between calls (the scan is synchronous): a body costs no fresh arrays.
    kinds.length = 0;
    keys.length = 0;
    lastKey.length = 0;
  }
}

const kinds: Frame[] = [];
const keys: Array<string | string[] | Set<string> | undefined> = [];
const lastKey: Array<string | undefined> = [];

function scanKeys(text: string): string | undefined {
  let expectKey = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = endOfString(text, i);
      const top = kinds.length - 1;
      if (expectKey && top >= 0 && kinds[top] !== Frame.Array) {
        const raw = text.slice(i + 1, end);
        const decoded = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const key = kinds[top] === Frame.Other ? decoded : decoded.toLowerCase();
        const seen = keys[top];
        if (seen === undefined) keys[top] = key;
        else if (typeof seen === 'string') {
          if (seen === key) return `duplicate key ${JSON.stringify(decoded)}`;
          keys[top] = [seen, key];
        } else if (Array.isArray(seen)) {
          if (seen.includes(key)) return `duplicate key ${JSON.stringify(decoded)}`;
          seen.push(key);
          // A short array beats a Set for the few keys an object usually has; a big object gets a Set.
          if (seen.length > SMALL_OBJECT_KEYS) keys[top] = new Set(seen);
        } else {
          if (seen.has(key)) return `duplicate key ${JSON.stringify(decoded)}`;
          seen.add(key);
        }
        lastKey[top] = decoded;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (kinds.length >= MAX_JSON_DEPTH) return `nesting deeper than ${MAX_JSON_DEPTH} levels`;
      kinds.push(c === OPEN_ARRAY ? Frame.Array : childFrame(kinds, lastKey));
      keys.push(undefined);
      lastKey.push(undefined);
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      kinds.pop();
      keys.pop();
      lastKey.pop();
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = kinds.length > 0 && kinds[kinds.length - 1] !== Frame.Array;
    }
  }
  return undefined;
}

function childFrame(kinds: readonly Frame[], lastKey: ReadonlyArray<string | undefined>): Frame {
  const depth = kinds.length;
  // The root object, or an object directly inside a root array (a batch), is a message.
  if (depth === 0 || (depth === 1 && kinds[0] === Frame.Array)) return Frame.Message;
  const parent = depth - 1;
  if (kinds[parent] === Frame.Message && lastKey[parent] === 'params') return Frame.Params;
  return Frame.Other;
}
