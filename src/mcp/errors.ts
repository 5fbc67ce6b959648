import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { ClientCapabilities } from './types.js';

/** MCP's own wire codes, added to JSON-RPC's reserved ones. */
export const McpErrorCode = {
  ...ErrorCode,
  /** 2026-07-28 basic/transports/streamable-http: Server Validation. */
  HeaderMismatch: -32020,
  /** 2026-07-28: a request needs a capability the client did not declare in `_meta`. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28 basic/versioning. */
  UnsupportedProtocolVersion: -32022,
  /** Legacy servers (before SEP-2164) answered an unknown resource with -32002. */
  LegacyResourceNotFound: -32002,
  /** 2025-11-25 URL-mode elicitation required. */
  UrlElicitationRequired: -32042,
} as const;

export function headerMismatch(message: string): RpcError {
  return new RpcError(McpErrorCode.HeaderMismatch, message);
}

export function missingRequiredClientCapability(requiredCapabilities: ClientCapabilities): RpcError {
  return new RpcError(McpErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
    requiredCapabilities,
  });
}

export function unsupportedProtocolVersion(requested: string, supported: readonly string[]): RpcError {
  return new RpcError(McpErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${requested}`, {
    requested,
    supported: [...supported],
  });
}

/** SEP-2164: a resource that does not exist is Invalid params (-32602), carrying its URI. */
export function resourceNotFound(uri: string): RpcError {
  return new RpcError(McpErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
}

export function invalidParams(message: string, data?: unknown): RpcError {
  return new RpcError(McpErrorCode.InvalidParams, message, data);
}

/** Both the current code and the legacy -32002 mean "resource not found". */
export function isResourceNotFound(error: unknown): boolean {
  if (!(error instanceof RpcError)) return false;
  if (error.code === McpErrorCode.LegacyResourceNotFound) return true;
  return error.code === McpErrorCode.InvalidParams && /not found/i.test(error.message);
}
