/**
 * One codec per protocol era, chosen at negotiation (src/client/era.ts), mirroring the server's
 * (src/server/codec.ts): the handshake era (2024-11-05..2025-11-25, src/client/handshake.ts) and the stateless
 * era (2026-07-28, src/client/stateless.ts). Everything that differs between the eras on the client side is a
 * member here; the rest of the client asks its codec instead of testing the era.
 */
import type { Connection, RequestOptions, Result } from '../jsonrpc/connection.js';
import { MetaKey } from '../mcp/meta.js';
import type { Era } from '../mcp/revisions.js';
import type { ServerState } from './era.js';
import type { SubscriptionWire } from './subscriptions.js';

/** W3C Trace Context fields of a request (`_meta.traceparent`, `tracestate`, `baggage`). */
interface TraceFields {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
  baggage?: string | undefined;
}

/** What one round trip needs on the wire: the connection's options plus the caller's trace. */
export interface WireRequestOptions extends RequestOptions {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/**
 * Writes the caller's trace into `meta`: `traceparent`, and `tracestate` and `baggage` beside it (W3C Trace
 * Context: a tracestate without a traceparent means nothing). Both eras' codecs use it.
 */
export function writeTrace(meta: Record<string, unknown>, options: WireRequestOptions): void {
  if (!options.traceparent) return;
  meta[MetaKey.TraceParent] = options.traceparent;
  if (options.tracestate) meta[MetaKey.TraceState] = options.tracestate;
  if (options.baggage) meta[MetaKey.Baggage] = options.baggage;
}

/** Copies the caller's trace into the options of one round trip (nothing without a traceparent). */
export function copyTrace(from: Readonly<TraceFields>, into: WireRequestOptions): void {
  if (!from.traceparent) return;
  into.traceparent = from.traceparent;
  if (from.tracestate) into.tracestate = from.tracestate;
  if (from.baggage) into.baggage = from.baggage;
}

/** Sends one request during connect, through the client's middleware (see `ClientRequestContext.connecting`). */
export type ConnectSend = (method: string, params: Record<string, unknown> | undefined) => Promise<Result>;

export interface ClientEraCodec {
  readonly era: Era;
  /** The negotiated protocol version. */
  readonly version: string;
  /** Liveness without a cache in the way: `ping` (handshake era), an uncached `server/discover` (stateless). */
  readonly pingMethod: string;
  /**
   * One round trip in the era's envelope: `_meta` with version, capabilities and identity (stateless) or the
   * bare request (handshake). Rejects with the transport's own failure, not the connection's wrapper.
   */
  send(
    connection: Connection,
    method: string,
    params: Record<string, unknown> | undefined,
    options: WireRequestOptions,
  ): Promise<Result>;
  /** Whether `method` may answer `input_required`, which the client fulfils and retries (basic/patterns/mrtr). */
  answersInput(method: string): boolean;
  /** Right after negotiation: the handshake era sets the log level with a request; the other era needs none. */
  afterConnect(state: ServerState, send: ConnectSend): Promise<void>;
  /** How `subscribe()` travels: resources/subscribe plus pushed notifications, or subscriptions/listen. */
  readonly subscriptions: SubscriptionWire;
}
