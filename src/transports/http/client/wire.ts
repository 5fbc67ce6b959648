/** Reading JSON-RPC out of HTTP bodies: pure helpers for the Streamable HTTP client. */
import type { RequestId } from '../../../jsonrpc/messages.js';
import { isRecord } from '../../../util/record.js';

export function isResponseTo(value: unknown, id: RequestId): boolean {
  if (!isRecord(value)) return false;
  return value.id === id && ('result' in value || 'error' in value);
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
  if (!isRecord(value)) return undefined;
  const message = value;
  const error = message.error;
  if (message.jsonrpc !== '2.0' || !isRecord(error)) return undefined;
  if (typeof error.code !== 'number' || typeof error.message !== 'string') return undefined;
  if (message.id !== undefined && message.id !== null && message.id !== id) return undefined;
  return { ...message, id };
}
