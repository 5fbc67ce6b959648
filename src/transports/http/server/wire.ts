import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { JSONRPCErrorResponse, JSONRPCResponse, RequestId } from '../../../jsonrpc/messages.js';
import { McpErrorCode } from '../../../mcp/errors.js';

/** `application/json`, with or without parameters (charset). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semicolon = value.indexOf(';');
  const essence = (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return essence === 'application/json';
}

export interface Accepts {
  readonly json: boolean;
  readonly sse: boolean;
}

const ACCEPT_ALL: Accepts = { json: true, sse: true };

/** The last Accept header seen and what it allows: a client sends the same one on every request. */
let lastAccept: { value: string; accepts: Accepts } | undefined;

/** What the client's `Accept` allows; a missing header accepts anything. */
export function parseAccept(value: string | undefined): Accepts {
  if (value === undefined || value === '') return ACCEPT_ALL;
  if (lastAccept?.value === value) return lastAccept.accepts;
  const lower = value.toLowerCase();
  const accepts: Accepts = lower.includes('*/*')
    ? ACCEPT_ALL
    : {
        json: lower.includes('application/json') || lower.includes('application/*'),
        sse: lower.includes('text/event-stream') || lower.includes('text/*'),
      };
  lastAccept = { value, accepts };
  return accepts;
}

/**
 * A JSON-RPC error response. Without a readable request id the `id` member is left out (MCP's schema types it
 * as an optional RequestId, so not null), as the transports doc allows for HTTP error bodies.
 */
export function errorResponse(
  id: RequestId | null | undefined,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCErrorResponse {
  const error = data === undefined ? { code, message } : { code, message, data };
  return id === null || id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/**
 * 2026-07-28 basic/transports/streamable-http: the HTTP status of a stateless request's error response.
 * Method not found is 404 (so a client can tell it from a legacy server's 404, the body carries -32601);
 * header mismatch, unsupported version, missing capability and malformed requests are 400. Any other error
 * comes from the handler (in-band) and travels as the payload of a 200.
 */
export function statusForResponse(response: JSONRPCResponse): number {
  if (!('error' in response)) return 200;
  switch (response.error.code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case McpErrorCode.HeaderMismatch:
    case McpErrorCode.MissingRequiredClientCapability:
    case McpErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // 2026-07-28 streamable-http: reverse proxies must not buffer the stream.
  'x-accel-buffering': 'no',
};

/** One SSE event carrying a JSON-RPC message (JSON.stringify never emits a raw newline, so one data line). */
export function sseMessage(json: string, id?: string): string {
  return id === undefined
    ? `event: message\ndata: ${json}\n\n`
    : `event: message\nid: ${id}\ndata: ${json}\n\n`;
}

/**
 * 2025-11-25 basic/transports: the priming event, an id with empty data, sent first so the client can resume
 * with Last-Event-ID; `retry` tells it how long to wait before reconnecting (SEP-1699 polling).
 */
export function ssePriming(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${retryMs}\ndata:\n\n`;
}

export const SSE_KEEPALIVE = ':\n\n';
