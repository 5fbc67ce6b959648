import type { JSONRPCMessage, RequestId } from './messages.js';

/**
 * Facts a transport knows about an incoming message that the message itself does not carry: the HTTP request's
 * headers, the authenticated principal, the session. Opaque to the connection; handed to handlers as is.
 */
export interface MessageExtra {
  readonly headers?: Headers;
  readonly authInfo?: unknown;
  readonly sessionId?: string;
  /** The peer's IP address and port, when the transport is a socket (OpenTelemetry `client.address`/`port`). */
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  readonly [key: string]: unknown;
}

export interface SendOptions {
  /**
   * The incoming request this message belongs to (its response, a progress or log notification for it, or a
   * request nested in it). Transports with per-request streams (Streamable HTTP) route by it; stdio ignores it.
   */
  relatedRequestId?: RequestId;
}

/**
 * Framing and delivery only: a transport moves parsed JSON-RPC messages and knows nothing of MCP methods.
 * Parse once on receipt; the connection classifies by shape.
 */
export interface Transport {
  /** Starts delivery; messages arrive on `onmessage` only after this resolves. */
  start(): Promise<void>;
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
  /**
   * Optional: as `send`, without a promise, for a sender that only needs to hear of a failure (a connection
   * sending many requests makes no promise and no reaction per request). Throws for a message that cannot be
   * framed (nothing was queued). A request that is not written (the write failed, the transport is not open)
   * is reported to `onpostfailed` with its id, possibly before `post` returns; any other posted message that
   * fails, or a request when `onpostfailed` is not set, to `onerror`.
   *
   * Returns, for a request whose params it serialised at once, the JSON text they were written with, less the
   * `sharedMetaOf` them (src/jsonrpc/serialise.ts: `takeWrittenParams`); the connection keeps it to send the
   * request again instead of the objects. Undefined otherwise (the connection keeps the objects).
   */
  post?(message: JSONRPCMessage, options?: SendOptions): string | undefined;
  /** The posted requests (by id) whose write failed: a batched write reports all it held in one call. */
  onpostfailed?: (error: Error, ids: readonly RequestId[]) => void;
  /** Closes the transport; `onclose` fires once, whichever side closed first. */
  close(): Promise<void>;
  /** A parsed value that still has to be classified (it may be invalid). */
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  /** Fired exactly once. `reason` explains an unexpected close (exit code, signal, stderr tail). */
  onclose?: (reason?: Error) => void;
  /** A non-fatal problem (a malformed line, a failed send); fatal ones end in `onclose`. */
  onerror?: (error: Error) => void;
  /**
   * Cancels an outgoing request by transport means (Streamable HTTP closes that request's response stream).
   * Returns true when done so; otherwise the connection sends the protocol's cancellation notification.
   */
  cancelRequest?(id: RequestId, reason: unknown): boolean;
}
