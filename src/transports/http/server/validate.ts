import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import type { JSONRPCRequest } from '../../../jsonrpc/messages.js';
import { headerMismatch, unsupportedProtocolVersion } from '../../../mcp/errors.js';
import { Header, MetaKey } from '../../../mcp/meta.js';
import { NAMED_METHODS } from '../../../mcp/methods.js';
import { eraOf, isSupportedVersion, statelessVersions } from '../../../mcp/revisions.js';
import { type ParamHeader, decodeHeaderValue, scanParamHeaders, valueAtPath } from '../header-values.js';
import { isRecord } from '../../../util/record.js';
import type { HeaderReader } from './types.js';

/** Looks up a tool's `x-mcp-header` declarations; undefined when the tool is unknown. */
export type ParamHeaderLookup = (toolName: string) => readonly ParamHeader[] | undefined;

/**
 * Caches scanParamHeaders() per inputSchema object, so a tool's declarations are read once, not per request.
 * An invalid declaration set yields no headers (such a tool should not have been registered; clients drop it).
 */
export function paramHeaderLookup(
  toolInputSchema: ((name: string) => unknown) | undefined,
): ParamHeaderLookup {
  if (!toolInputSchema) return () => undefined;
  const cache = new WeakMap<object, readonly ParamHeader[]>();
  return (name) => {
    const schema = toolInputSchema(name);
    if (!isRecord(schema)) return undefined;
    let headers = cache.get(schema);
    if (headers === undefined) {
      const scan = scanParamHeaders(schema);
      headers = scan.ok ? scan.headers : [];
      cache.set(schema, headers);
    }
    return headers;
  };
}

const STATELESS_VERSIONS = statelessVersions();

/**
 * 2026-07-28 basic/transports/streamable-http: Server Validation, run before dispatch so a rejected request never
 * reaches its handler. Compares the headers with the parsed body that is dispatched (never with the raw text).
 * Order follows the spec's reading: the version header must exist, `_meta` must carry the per-request fields
 * (basic/index: -32602), the two versions must agree (-32020), the version must be one we speak (-32022), then
 * Mcp-Method, Mcp-Name and Mcp-Param-* (-32020).
 */
export function validateStatelessRequest(
  request: JSONRPCRequest,
  header: HeaderReader,
  paramHeaders: ParamHeaderLookup,
): RpcError | undefined {
  const versionHeader = header(Header.ProtocolVersion);
  if (versionHeader === undefined)
    return headerMismatch('Header mismatch: missing MCP-Protocol-Version header');
  const params = request.params;
  const meta = params?._meta;
  const version = isRecord(meta) ? meta[MetaKey.ProtocolVersion] : undefined;
  if (typeof version !== 'string') {
    return new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: _meta must carry ${MetaKey.ProtocolVersion}`,
    );
  }
  if (!isRecord((meta as Record<string, unknown>)[MetaKey.ClientCapabilities])) {
    return new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: _meta must carry ${MetaKey.ClientCapabilities}`,
    );
  }
  if (versionHeader !== version) {
    return headerMismatch(
      `Header mismatch: MCP-Protocol-Version header ${JSON.stringify(versionHeader)} does not match _meta protocolVersion ${JSON.stringify(version)}`,
    );
  }
  if (!isSupportedVersion(version) || eraOf(version) !== 'stateless') {
    return unsupportedProtocolVersion(version, STATELESS_VERSIONS);
  }
  const methodHeader = header(Header.Method);
  if (methodHeader === undefined) return headerMismatch('Header mismatch: missing Mcp-Method header');
  if (methodHeader !== request.method) {
    return headerMismatch(
      `Header mismatch: Mcp-Method header ${JSON.stringify(methodHeader)} does not match body method ${JSON.stringify(request.method)}`,
    );
  }
  const nameField = NAMED_METHODS[request.method];
  if (nameField !== undefined) {
    const problem = checkValue('Mcp-Name', header(Header.Name), params?.[nameField], 'string');
    if (problem) return headerMismatch(problem);
  }
  if (request.method === 'tools/call' && typeof params?.name === 'string') {
    const declared = paramHeaders(params.name);
    if (declared) {
      for (const declaration of declared) {
        const value = valueAtPath(params.arguments, declaration.path);
        const name = `Mcp-Param-${declaration.name}`;
        const problem = checkValue(
          name,
          header(Header.ParamPrefix + declaration.name.toLowerCase()),
          value,
          declaration.type,
        );
        if (problem) return headerMismatch(problem);
      }
    }
  }
  return undefined;
}

/** One mirrored value: absent in the body means the header must be absent too; present means equal. */
function checkValue(
  name: string,
  raw: string | undefined,
  bodyValue: unknown,
  type: ParamHeader['type'],
): string | undefined {
  if (bodyValue === undefined || bodyValue === null) {
    return raw === undefined
      ? undefined
      : `Header mismatch: ${name} header is set but the body has no value for it`;
  }
  if (raw === undefined) return `Header mismatch: missing ${name} header`;
  const decoded = decodeHeaderValue(raw);
  if (decoded === undefined) return `Header mismatch: ${name} header value is malformed`;
  if (!sameValue(decoded, bodyValue, type)) {
    return `Header mismatch: ${name} header value ${JSON.stringify(decoded)} does not match body value ${JSON.stringify(bodyValue)}`;
  }
  return undefined;
}

/** A decimal (optionally fractional or exponent) number: '42', '-7', '42.0'; never '', '0x10' or ' 1'. */
const DECIMAL = /^[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function sameValue(header: string, body: unknown, type: ParamHeader['type']): boolean {
  switch (type) {
    case 'string':
      return typeof body === 'string' && header === body;
    case 'boolean':
      return typeof body === 'boolean' && header === (body ? 'true' : 'false');
    case 'integer':
      // 2026-07-28 streamable-http: Server Validation — compare integers numerically ('42.0' equals 42).
      return typeof body === 'number' && DECIMAL.test(header) && Number(header) === body;
  }
}
