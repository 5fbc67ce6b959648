import type { JSONRPCNotification, RequestId } from './messages.js';

/**
 * The conventions a protocol on top of JSON-RPC uses for cancellation and progress. The connection stays
 * protocol-agnostic; MCP supplies its own hooks (src/mcp/hooks.ts), as the LSP supplies $/cancelRequest.
 */
export interface ProtocolHooks {
  /** The notification that tells the peer a request was cancelled, or undefined to send none. */
  cancelNotification(id: RequestId, reason: string | undefined): JSONRPCNotification | undefined;
  /** The request id an incoming notification cancels, or undefined when it is not a cancellation. */
  cancelledRequestId(notification: JSONRPCNotification): RequestId | undefined;
  /** The progress token an incoming notification reports on, or undefined when it is not a progress report. */
  progressToken(notification: JSONRPCNotification): RequestId | undefined;
  /** Attaches a progress token to outgoing request params (returns new or mutated params). */
  withProgressToken(params: Record<string, unknown> | undefined, token: RequestId): Record<string, unknown>;
}

/** Plain JSON-RPC: no cancellation or progress conventions. */
export const noHooks: ProtocolHooks = {
  cancelNotification: () => undefined,
  cancelledRequestId: () => undefined,
  progressToken: () => undefined,
  withProgressToken: (params) => params ?? {},
};
