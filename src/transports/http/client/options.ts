import type { Agent } from 'node:http';
import type { JSONRPCRequest } from '../../../jsonrpc/messages.js';
import type { Logger } from '../../../util/logger.js';

/**
 * `stateless`: 2026-07-28, every request stands alone and carries its version in `_meta` and headers.
 * `session`: 2025-03-26 to 2025-11-25, an `Mcp-Session-Id` from initialize, a GET stream, resumable streams.
 */
export type StreamableHttpMode = 'stateless' | 'session';

/** One HTTP request the transport is about to make (a POST per message, the GET stream, the session DELETE). */
export interface HttpRequestDescription {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: URL;
}

/**
 * Headers computed afresh for every HTTP request, e.g. `Authorization` and a DPoP proof bound to the request's
 * method and URL (RFC 9449 §4.2). The transport only merges what it returns.
 */
export type HttpRequestHeaderHook = (
  request: HttpRequestDescription,
) => Record<string, string> | Promise<Record<string, string>>;

export interface StreamableHttpClientOptions {
  /** Added to every request (authorization, tracing). */
  headers?: Record<string, string>;
  /** Headers for each HTTP request, computed when it is made (see HttpRequestHeaderHook). */
  httpHeaders?: HttpRequestHeaderHook;
  mode?: StreamableHttpMode;
  /** Cap on a JSON body or on one SSE event (default 16 MiB). */
  maxResponseBytes?: number;
  agent?: Agent;
  logger?: Logger;
  /** Extra headers for one outgoing request, e.g. `Mcp-Param-*` mirrored from a tool's arguments. */
  requestHeaders?: (message: JSONRPCRequest) => Record<string, string> | undefined;
  /** Reconnection attempts for the GET stream and resumed request streams (default 5). */
  maxReconnectAttempts?: number;
  /** Wait before reconnecting when the server sent no `retry` field (default 1000 ms). */
  defaultRetryMs?: number;
}
