import type { OutgoingHttpHeaders } from 'node:http';
import type { JSONRPCMessage, JSONRPCRequest } from '../../../jsonrpc/messages.js';
import { Header, MetaKey } from '../../../mcp/meta.js';
import { NAMED_METHODS } from '../../../mcp/methods.js';
import { encodeHeaderValue } from '../header-values.js';
import type { StreamableHttpClientOptions } from './options.js';
import type { ToolHeaderRegistry } from './tool-headers.js';

/**
 * 2026-07-28 basic/transports/streamable-http: Request Metadata. Adds to `headers` what a stateless message
 * carries in its own headers: the version from its `_meta`, `Mcp-Method`, `Mcp-Name`, and for a request the
 * `Mcp-Param-*` mirrored from a tool's arguments and the caller's per-request headers.
 */
export function addRequestMetadata(
  headers: OutgoingHttpHeaders,
  message: JSONRPCMessage,
  registry: ToolHeaderRegistry,
  requestHeaders: StreamableHttpClientOptions['requestHeaders'],
): void {
  if (!('method' in message)) return;
  const params = message.params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[MetaKey.ProtocolVersion];
  if (typeof version === 'string') headers[Header.ProtocolVersion] = version;
  headers[Header.Method] = message.method;
  const nameKey = NAMED_METHODS[message.method];
  const name = nameKey === undefined ? undefined : params?.[nameKey];
  if (typeof name === 'string') headers[Header.Name] = encodeHeaderValue(name);
  if ('id' in message) {
    Object.assign(headers, registry.headersFor(message as JSONRPCRequest));
    Object.assign(headers, requestHeaders?.(message as JSONRPCRequest));
  }
}
