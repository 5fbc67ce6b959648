/**
 * MCP's own local failure codes, beside the connection's (src/jsonrpc/errors.ts): what an MCP client or its
 * HTTP transport reports to its caller, never sent to the peer. Same `LocalError` class as the JSON-RPC
 * layer's (one `instanceof` for every layer), its code typed with these as well.
 */
import { LocalError as ConnectionLocalError, type LocalErrorCode } from '../jsonrpc/errors.js';

export type McpLocalErrorCode =
  | LocalErrorCode
  /** 2026-07-28 basic/patterns/mrtr: a request still answered input_required after the client's round limit. */
  | 'too_many_rounds'
  /** A response over the client's cap: an HTTP body or SSE event over `maxResponseBytes`, a stdio line over `maxLineBytes`. */
  | 'response_too_large';

export type LocalError = ConnectionLocalError<McpLocalErrorCode>;
export const LocalError = ConnectionLocalError as new (
  code: McpLocalErrorCode,
  message: string,
  options?: { cause?: unknown; data?: unknown },
) => LocalError;
