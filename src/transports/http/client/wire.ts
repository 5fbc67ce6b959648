/** Reading JSON-RPC out of HTTP bodies: pure helpers for the Streamable HTTP client. */
import type { RequestId } from '../../../jsonrpc/messages.js';

export function isResponseTo(value: unknown, id: RequestId): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return message.id === id && ('result' in message || 'error' in message);
}

/** A JSON-RPC error response in an HTTP error body, re-addressed to the request when its id is null. */
export function parseErrorResponse(body: string, id: RequestId): Record<string, unknown> | undefined {
  if (!body) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  const error = message.error as Record<string, unknown> | undefined;
  if (message.jsonrpc !== '2.0' || typeof error !== 'object' || error === null) return undefined;
  if (typeof error.code !== 'number' || typeof error.message !== 'string') return undefined;
  if (message.id !== undefined && message.id !== null && message.id !== id) return undefined;
  return { ...message, id };
}
