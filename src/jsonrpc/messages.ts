/**
 * JSON-RPC 2.0 message shapes and a shape classifier. Messages are classified by the members they carry
 * (one pass over a handful of keys), never by a schema library: this runs on every message.
 */
import { isRecord } from '../util/record.js';

export type RequestId = string | number;

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JSONRPCResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JSONRPCErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JSONRPCErrorResponse {
  jsonrpc: '2.0';
  /** Absent (or null on the wire) only when the request id could not be read, e.g. a parse error. */
  id?: RequestId | null;
  error: JSONRPCErrorObject;
}

export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

export type MessageKind = 'request' | 'notification' | 'result' | 'error';

/** Why a value is not a JSON-RPC message; used to build a -32600 answer. */
export interface InvalidMessage {
  kind: 'invalid';
  reason: string;
  /** The id, when one could be read, so the error response can be correlated. */
  id: RequestId | null;
}

export type Classified =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'result'; message: JSONRPCResultResponse }
  | { kind: 'error'; message: JSONRPCErrorResponse }
  | InvalidMessage;

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** Classifies one parsed JSON value by shape. Batches (arrays) are the caller's concern. */
export function classify(value: unknown): Classified {
  const kind = kindOf(value);
  return typeof kind === 'string' ? ({ kind, message: value } as Classified) : kind;
}

/**
 * As `classify`, for a reader that keeps the value itself: the kind of a valid message (no object made for it:
 * this runs on every message), or why it is invalid.
 */
export function kindOf(value: unknown): MessageKind | InvalidMessage {
  if (!isRecord(value)) return { kind: 'invalid', reason: 'message is not a JSON object', id: null };
  const id = value.id;
  const readableId = isRequestId(id) ? id : null;
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', reason: 'jsonrpc must be "2.0"', id: readableId };
  const method = value.method;
  if (method !== undefined) {
    if (typeof method !== 'string')
      return { kind: 'invalid', reason: 'method must be a string', id: readableId };
    const params = value.params;
    if (params !== undefined && !isRecord(params)) {
      // MCP narrows JSON-RPC: params, when present, are an object (by-name).
      return { kind: 'invalid', reason: 'params must be an object', id: readableId };
    }
    if (id === undefined) return 'notification';
    if (!isRequestId(id)) {
      return { kind: 'invalid', reason: 'request id must be a string or an integer (not null)', id: null };
    }
    return 'request';
  }
  if ('result' in value) {
    if (!isRequestId(id))
      return { kind: 'invalid', reason: 'response id must be a string or integer', id: null };
    if (!isRecord(value.result)) return { kind: 'invalid', reason: 'result must be an object', id };
    return 'result';
  }
  if ('error' in value) {
    const error = value.error;
    if (!isRecord(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return { kind: 'invalid', reason: 'error must carry a numeric code and a message', id: readableId };
    }
    if (id !== undefined && id !== null && !isRequestId(id)) {
      return { kind: 'invalid', reason: 'error response id must be a string, integer or null', id: null };
    }
    return 'error';
  }
  return {
    kind: 'invalid',
    reason: 'message is neither a request, a notification nor a response',
    id: readableId,
  };
}

export function isJSONRPCRequest(value: unknown): value is JSONRPCRequest {
  return classify(value).kind === 'request';
}

export function isJSONRPCNotification(value: unknown): value is JSONRPCNotification {
  return classify(value).kind === 'notification';
}

export function isJSONRPCResponse(value: unknown): value is JSONRPCResponse {
  const kind = classify(value).kind;
  return kind === 'result' || kind === 'error';
}
