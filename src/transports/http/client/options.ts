import type { Agent } from 'node:http';
import type { JSONRPCRequest } from '../../../jsonrpc/messages.js';
import type { Logger } from '../../../util/logger.js';

/**
 * `stateless`: 2026-07-28, every request stands alone and carries its version in `_meta` and headers.
 * `session`: 2025-03-26 to 2025-11-25, an `Mcp-Session-Id` from initialize, a GET stream, resumable streams.
 */
export type StreamableHttpMode = 'stateless' | 'session';

export interface StreamableHttpClientOptions {
  /** Added to every request (authorization, tracing). */
  headers?: Record<string, string>;
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
