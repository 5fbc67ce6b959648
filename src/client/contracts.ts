/**
 * The shapes the client's modules share: the era codec, the negotiated server state, the link, the request
 * pipeline's context and the subscription wire. Declared here, apart from the code that implements them, so
 * that negotiation, the codecs, the pipeline and the subscription manager each depend on these contracts and
 * not on one another.
 */
import type { Connection, RequestOptions, Result } from '../jsonrpc/connection.js';
import type { RequestId } from '../jsonrpc/messages.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { Era } from '../mcp/revisions.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  Root,
  ServerCapabilities,
  SubscriptionFilter,
} from '../mcp/types.js';
import type { Middleware } from '../util/compose.js';
import type { Deferred } from '../util/deferred.js';

/** What negotiation learnt of the server: its era and version, identity, capabilities and instructions. */
export interface ServerState {
  era: Era;
  protocolVersion: string;
  serverInfo: Implementation | undefined;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
  supportedVersions?: string[];
}

/** What one round trip needs on the wire: the connection's options plus the caller's trace. */
export interface WireRequestOptions extends RequestOptions, TraceContext {
  /** The capabilities this request declares (2026-07-28 `_meta`); a handshake session declared its own. */
  clientCapabilities?: ClientCapabilities;
}

/**
 * W3C Trace Context of one request, carried in `_meta` (2026-07-28 basic/index: `traceparent`, `tracestate` and
 * `baggage` are reserved for it) and, over HTTP, in the headers of the same names.
 */
export interface TraceContext {
  /** W3C traceparent (`_meta.traceparent`). */
  traceparent?: string;
  /** W3C tracestate, sent only with a traceparent. */
  tracestate?: string;
  /** W3C baggage, sent only with a traceparent. */
  baggage?: string;
}

/** Sends one request during connect, through the client's middleware (see `ClientRequestContext.connecting`). */
export type ConnectSend = (method: string, params: Record<string, unknown> | undefined) => Promise<Result>;

/**
 * One codec per protocol era, chosen at negotiation (src/client/era.ts), mirroring the server's
 * (src/server/codec.ts): the handshake era (2024-11-05..2025-11-25, src/client/handshake.ts) and the stateless
 * era (2026-07-28, src/client/stateless.ts). Everything that differs between the eras on the client side is a
 * member here; the rest of the client asks its codec instead of testing the era.
 */
export interface ClientEraCodec {
  readonly era: Era;
  /** The negotiated protocol version. */
  readonly version: string;
  /** Liveness without a cache in the way: `ping` (handshake era), an uncached `server/discover` (stateless). */
  readonly pingMethod: string;
  /**
   * One round trip in the era's envelope: `_meta` with version, capabilities and identity (stateless) or the
   * bare request (handshake). Rejects with the transport's own failure, not the connection's wrapper. `tag`
   * is the request's state for `options.onresult` (Connection.requestTagged).
   */
  send(
    connection: Connection,
    method: string,
    params: Record<string, unknown> | undefined,
    options: WireRequestOptions,
    tag?: unknown,
  ): Promise<Result>;
  /**
   * The params a request was given, from those `send` put on the wire (the era's envelope taken off where it
   * is the codec's own; a `_meta` that carried the caller's keys stays, and `send` merges it again). The client
   * keeps only what went on the wire while a request is in flight, and rebuilds from it for an MRTR round.
   */
  callerParams(sent: Record<string, unknown> | undefined): Record<string, unknown> | undefined;
  /** Whether `method` may answer `input_required`, which the client fulfils and retries (basic/patterns/mrtr). */
  answersInput(method: string): boolean;
  /** Right after negotiation: the handshake era sets the log level with a request; the other era needs none. */
  afterConnect(state: ServerState, send: ConnectSend): Promise<void>;
  /** How `subscribe()` travels: resources/subscribe plus pushed notifications, or subscriptions/listen. */
  readonly subscriptions: SubscriptionWire;
}

export type LinkKind = 'stdio' | 'streamable-http' | 'sse' | 'custom';

/** One live connection to the server: the transport, the JSON-RPC connection over it, and the server's key. */
export interface Link {
  readonly kind: LinkKind;
  readonly transport: Transport;
  readonly connection: Connection;
  /** Id of the request most recently handed to the transport. */
  lastRequestId(): RequestId | undefined;
  /** A stable name for the server: era cache and result cache scope. */
  readonly key: string;
}

/** What a caller can set on one call. */
export interface CallOptions extends TraceContext {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxTotalTimeoutMs?: number;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** tools/call is never retried after a connection failure unless this is set. */
  retry?: boolean;
  /**
   * The capabilities this request declares instead of the client's (2026-07-28 `_meta`, every MRTR round): a
   * gateway forwards its caller's. A handshake-era session declared its capabilities at initialize; unused there.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * Answers this call's MRTR input requests (2026-07-28 `input_required`) instead of the client's handlers: a
   * gateway asks the caller the call is made for. A handshake-era server's own requests still go to the client's.
   */
  handlers?: ClientHandlers;
}

/** What the server asked for, and on whose behalf: the request that needed input (or none, legacy push). */
export interface InputContext {
  /** The client request that is waiting for this input (tools/call, prompts/get, resources/read), if known. */
  readonly relatedMethod?: string;
  /** The `inputRequests` key the server gave this input (2026-07-28 MRTR); absent for a server-initiated request. */
  readonly key?: string;
  readonly signal: AbortSignal;
}

/** The host's answers to server-to-client requests, in either era (MRTR input requests or legacy requests). */
export interface ClientHandlers {
  elicitation?: (params: ElicitRequestParams, context: InputContext) => ElicitResult | Promise<ElicitResult>;
  sampling?: (
    params: CreateMessageRequestParams,
    context: InputContext,
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  roots?: (context: InputContext) => Root[] | Promise<Root[]>;
}

/**
 * What a middleware sees of one request (the order of the pipeline is in src/client/pipeline.ts). A middleware
 * passes a modified copy to `next`, never mutates it.
 */
export interface ClientRequestContext {
  /** `notification` (only notifications/initialized, while connecting) resolves with `{}` once sent. */
  readonly kind: 'request' | 'notification';
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** The caller's options: cancellation, timeouts, progress, trace, retry. */
  readonly options: CallOptions;
  /** The live transport and JSON-RPC connection the request goes over (`link.transport` for HTTP details). */
  readonly link: Link;
  /** The era codec that puts the request on the wire. */
  readonly codec: ClientEraCodec;
  /** A read the client may resend after a link failure (lists, reads, prompts/get, completion). */
  readonly idempotent: boolean;
  /** Sent while connecting or renewing a session, before the client is usable. */
  readonly connecting: boolean;
}

export type ClientMiddleware = Middleware<ClientRequestContext, Result>;

/** What the built-in middleware needs of the client. */
export interface PipelineHost {
  readonly closed: boolean;
  /** The codec of the current link (a restarted server may speak another era). */
  readonly codec: ClientEraCodec;
  /** The current link once any restart in progress is over; rejects when the client is closed or dead. */
  ready(): Promise<Link>;
  /** Starts a new session after a 404 on `expired` (shared by parallel calls; a no-op for a replaced link). */
  renewSession(link: Link, expired: string | undefined): Promise<void>;
}

export interface ServerNotification {
  method: string;
  params: Record<string, unknown> | undefined;
}

export type NotificationListener = (notification: ServerNotification) => void;

/** What the subscription manager needs of the client. */
export interface SubscriptionHost {
  link(): Link;
  codec(): ClientEraCodec;
  state(): ServerState;
  ackTimeoutMs: number;
  /**
   * Sends one request of a subscription on the current link, through the client's middleware; `sent` hears
   * the id it went out with (a listen stream's notifications name it).
   */
  send(
    method: string,
    params: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number; clientCapabilities?: ClientCapabilities },
    sent?: (id: RequestId | undefined) => void,
  ): Promise<Result>;
}

/** What an era's wire needs from the manager: the host, and a way to end a subscription. */
export interface WireHost extends SubscriptionHost {
  end(active: ActiveSubscription): void;
  /** The resource URIs other open subscriptions still want (not to be unsubscribed). */
  stillWanted(): ReadonlySet<string>;
}

/** How one era carries subscriptions (see `ClientEraCodec.subscriptions`). */
export interface SubscriptionWire {
  open(active: ActiveSubscription, host: WireHost): Promise<void>;
  /** Called after the subscription has ended locally. */
  close(active: ActiveSubscription, host: WireHost): Promise<void>;
}

/** One open `subscribe()`, as the manager and its era's wire track it. */
export interface ActiveSubscription {
  filter: SubscriptionFilter;
  listener: NotificationListener;
  /** The listen request's id (stateless era) once sent. */
  id: RequestId | undefined;
  controller: AbortController;
  ack: Deferred<SubscriptionFilter> | undefined;
  acknowledged: SubscriptionFilter;
  ended: Deferred<void>;
  open: boolean;
  /** Consecutive re-listens after unexpected drops (bounded). */
  relistens: number;
  /** What the listen declares instead of the client's capabilities (a gateway: its caller's extensions). */
  clientCapabilities?: ClientCapabilities;
}
