/**
 * 2026-07-28 basic/transports/streamable-http: Value Encoding and Schema Extension (`x-mcp-header`).
 * Shared by the client (which writes `Mcp-Name` / `Mcp-Param-*`) and the server (which checks them against
 * the body). Pure functions, no I/O.
 */
import { MetaKey } from '../../mcp/meta.js';
import { isRecord } from '../../util/record.js';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** RFC 9110 tchar: the characters of a field-name token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII and inner spaces/tabs only. */
const PLAIN_SAFE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

function looksEncoded(value: string): boolean {
  return value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX);
}

/** Encodes a header value, switching to the Base64 sentinel form whenever the plain form would be unsafe. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN_SAFE.test(value) && !looksEncoded(value)) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/** Decodes a header value; undefined when it is malformed (bad characters or bad Base64). */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!looksEncoded(raw)) {
    return raw === '' || /^[\x20-\x7e\t]*$/.test(raw) ? raw : undefined;
  }
  const body = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(body, 'base64');
  const text = bytes.toString('utf8');
  // Reject Base64 that does not round-trip to valid UTF-8.
  if (Buffer.from(text, 'utf8').compare(bytes) !== 0) return undefined;
  return text;
}

/** Converts a primitive argument to its header string; undefined for values that are never mirrored. */
export function headerStringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** One `x-mcp-header` declaration: the header name part and the `properties` path to the value. */
export interface ParamHeader {
  readonly name: string;
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

export type ParamHeaderScan = { ok: true; headers: ParamHeader[] } | { ok: false; reason: string };

const NON_STATIC_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'dependentSchemas',
  'contains',
] as const;

/**
 * Reads every `x-mcp-header` in a tool's inputSchema and checks the constraints. A declaration that is not
 * statically reachable through `properties` chains, or that is malformed, makes the whole tool invalid.
 */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Set<string>();
  const problems: string[] = [];
  const visit = (schema: unknown, path: string[], reachable: boolean, depth: number): void => {
    if (!isRecord(schema) || depth > 64) return;
    if ('x-mcp-header' in schema && path.length > 0) {
      const problem = checkDeclaration(schema, reachable, seen);
      if (problem) problems.push(`${path.join('.')}: ${problem}`);
      else headers.push(declaration(schema, path));
    } else if ('x-mcp-header' in schema) {
      problems.push('x-mcp-header on the schema root');
    }
    const properties = schema.properties;
    if (isRecord(properties)) {
      for (const [key, child] of Object.entries(properties))
        visit(child, [...path, key], reachable, depth + 1);
    }
    for (const keyword of NON_STATIC_KEYWORDS) visitUnreachable(schema[keyword], path, depth);
  };
  const visitUnreachable = (value: unknown, path: string[], depth: number): void => {
    if (Array.isArray(value)) for (const item of value) visit(item, path, false, depth + 1);
    else if (isRecord(value) && ('type' in value || 'properties' in value || 'x-mcp-header' in value)) {
      visit(value, path, false, depth + 1);
    } else if (isRecord(value))
      for (const child of Object.values(value)) visit(child, path, false, depth + 1);
  };
  visit(inputSchema, [], true, 0);
  return problems.length > 0 ? { ok: false, reason: problems.join('; ') } : { ok: true, headers };
}

function checkDeclaration(
  schema: Record<string, unknown>,
  reachable: boolean,
  seen: Set<string>,
): string | undefined {
  const name = schema['x-mcp-header'];
  if (!reachable) return 'x-mcp-header is not statically reachable through properties';
  if (typeof name !== 'string' || name === '') return 'x-mcp-header must be a non-empty string';
  if (!TOKEN.test(name)) return `x-mcp-header ${JSON.stringify(name)} is not an HTTP token`;
  const lower = name.toLowerCase();
  if (seen.has(lower)) return `x-mcp-header ${JSON.stringify(name)} is declared twice`;
  seen.add(lower);
  const type = schema.type;
  if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
    return `x-mcp-header applies only to string, integer or boolean parameters (got ${JSON.stringify(type)})`;
  }
  return undefined;
}

function declaration(schema: Record<string, unknown>, path: string[]): ParamHeader {
  return { name: schema['x-mcp-header'] as string, path, type: schema.type as ParamHeader['type'] };
}

/** The value at a `properties` path in the call arguments, or undefined when absent or null. */
export function valueAtPath(args: unknown, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current === null ? undefined : current;
}

/** What a W3C trace header may hold here: visible ASCII and inner spaces, at most 8 KiB. */
const TRACE_HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]{0,8190}[\x21-\x7e])?$/;
const TRACE_KEYS = [MetaKey.TraceParent, MetaKey.TraceState, MetaKey.Baggage] as const;

/**
 * W3C Trace Context over HTTP: the trace a request carries in `_meta` goes in the headers of the same names too,
 * so HTTP proxies and instrumentation on the way join the same trace. A value no header may carry stays in
 * `_meta` only.
 */
export function copyTraceHeaders(meta: unknown, headers: Record<string, unknown>): void {
  if (typeof meta !== 'object' || meta === null || !(MetaKey.TraceParent in meta)) return;
  for (const key of TRACE_KEYS) {
    const value = (meta as Record<string, unknown>)[key];
    if (typeof value === 'string' && TRACE_HEADER_VALUE.test(value)) headers[key] = value;
  }
}
