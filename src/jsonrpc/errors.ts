import type { JSONRPCErrorObject } from './messages.js';

/** JSON-RPC 2.0 reserved codes. MCP's own codes live in src/mcp/errors.ts. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/**
 * A wire error: numeric code, message and optional data, as sent to or received from the peer.
 * Throw it from a handler to answer with exactly this error.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  toJSON(): JSONRPCErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static fromObject(error: JSONRPCErrorObject): RpcError {
    return new RpcError(error.code, error.message, error.data);
  }
}

/**
 * Local failure codes of a connection and the transports under it: what happened on this side, never sent to
 * the peer as is. A protocol layer above adds its own codes (MCP's: src/mcp/local-errors.ts) by naming a wider
 * `Code`; the class stays one, so `instanceof LocalError` holds for every layer's errors.
 */
export type LocalErrorCode =
  | 'timeout'
  | 'connection_closed'
  | 'cancelled'
  | 'transport_error'
  | 'message_too_large'
  | 'process_exited'
  | 'not_connected'
  | 'protocol_error';

/** A local error, thrown to the caller with a string code. */
export class LocalError<Code extends string = LocalErrorCode> extends Error {
  readonly code: Code;
  readonly data: unknown;

  // NoInfer: a code outside `Code` is a compile error, not a silently widened type.
  constructor(code: NoInfer<Code>, message: string, options?: { cause?: unknown; data?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LocalError';
    this.code = code;
    this.data = options?.data;
  }
}

export function isLocalError<Code extends string = LocalErrorCode>(
  error: unknown,
  code?: Code,
): error is LocalError<Code> {
  return error instanceof LocalError && (code === undefined || error.code === code);
}

/**
 * Turns any thrown value into the error object sent to the peer. An RpcError keeps its code and data; anything
 * else becomes -32603 with its message only: stack traces and causes never reach the peer.
 */
export function toWireError(error: unknown): JSONRPCErrorObject {
  if (error instanceof RpcError) return error.toJSON();
  if (error instanceof LocalError && error.code === 'timeout') {
    return { code: ErrorCode.InternalError, message: error.message };
  }
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : 'Internal error';
  return { code: ErrorCode.InternalError, message: message || 'Internal error' };
}
