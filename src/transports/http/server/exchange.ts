import type { MessageExtra } from '../../../jsonrpc/transport.js';
import type { HeaderReader } from './types.js';

/** A response being streamed as Server-Sent Events. */
export interface SseSink {
  /** Writes raw SSE text; ignored once the stream is closed. */
  write(chunk: string): void;
  /** Ends the HTTP response (the client sees the stream close). */
  end(): void;
  /** True once ended by us or by the client going away. */
  readonly closed: boolean;
  /** Called once when the client disconnects before we ended the stream. */
  onclose?: () => void;
}

/** What a handshake-era request's handler may close for polling (SEP-1699). */
export interface StreamControl {
  /** Ends the connection of the POST stream the request is answered on (the stream itself lives on). */
  closeSSEStream(): void;
  /** Ends the connection of the session's GET stream. */
  closeStandaloneSSEStream(): void;
}

export type BodyResult =
  | { ok: true; text: string }
  | { ok: false; reason: 'too_large' | 'aborted' | 'timeout' | 'invalid_utf8' };

/** Limits on reading one request body. */
export interface BodyLimits {
  /** Larger (declared or actual, chunked or not) is `too_large`, and the rest is never buffered. */
  readonly maxBytes: number;
  /** A body still incomplete after this long is `timeout` (a slow or stalled sender holds nothing longer). */
  readonly timeoutMs: number;
}

/**
 * One HTTP request/response pair, the only part that differs between node:http and web Request/Response. The
 * routing, validation and session logic is written once against this.
 */
export interface HttpExchange {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly header: HeaderReader;
  /** The host from the request URL, used when a runtime's Request carries no Host header. */
  readonly urlHost: string | undefined;
  query(name: string): string | undefined;
  /**
   * Reads the whole body as UTF-8 text within the limits (RFC 8259: JSON text exchanged is UTF-8): at once when
   * the edge already holds all of it, else a promise.
   */
  readBody(limits: BodyLimits): BodyResult | Promise<BodyResult>;
  /**
   * The caller's verified identity: what a middleware in front attached (node's `req.auth`, the fetch handler's
   * context), replaced by the auth guard's verdict when the handler has one.
   */
  authInfo: unknown;
  /** The guard's stable id of the caller (handshake-era sessions are bound to it); undefined without a guard. */
  principal: string | undefined;
  /** Set once a guard consumed the credentials: `extra().headers` then leaves Authorization and DPoP out. */
  credentialsConsumed: boolean;
  /**
   * Facts for handlers: headers (built lazily), `authInfo`, the session, and with `control` a handshake-era
   * request's `closeSSEStream` / `closeStandaloneSSEStream` (SEP-1699 polling).
   */
  extra(sessionId?: string, control?: StreamControl): MessageExtra;
  /** Sends a complete response; `body`, when given, is JSON text. */
  respond(status: number, headers: Record<string, string> | undefined, body?: string): void;
  /** Starts an event-stream response. */
  openSse(headers: Record<string, string> | undefined): SseSink;
  /** Registers a listener for the client going away before a complete response was sent. */
  onAbort(listener: () => void): void;
  /** True once a response was started. */
  readonly responded: boolean;
}
