/**
 * A request being served: the types a handler sees (its params, result and context) and the context itself.
 * The connection owns the bookkeeping; this module does not know the connection, only the two sends a context
 * makes through it, so the import goes one way.
 */
import type { RequestId } from './messages.js';
import type { MessageExtra, SendOptions } from './transport.js';

export type Params = Record<string, unknown> | undefined;
export type Result = Record<string, unknown>;

/**
 * What one request method takes and answers. A protocol layer describes the requests a side sends as a
 * method-keyed map of these (MCP's is McpRequests in agentforge/mcp); this layer only carries the types.
 */
export interface RequestTypes {
  params: Params;
  result: Result;
}

/** Requests keyed by method. The default, any method with any params, is what an untyped connection sends. */
export type RequestMap = Record<string, RequestTypes>;

/** `request`'s arguments after the method: params may be left out when the method's params are optional. */
export type RequestArguments<P extends Params> = undefined extends P
  ? [params?: P, options?: RequestOptions]
  : [params: P, options?: RequestOptions];

export interface RequestOptions {
  signal?: AbortSignal;
  /** Per-request timeout; default the connection's (60 s). A progress report restarts it. */
  timeoutMs?: number;
  /** Hard cap from the start of the request, however much progress is reported. */
  maxTotalTimeoutMs?: number;
  /** Receives each progress notification's params; its presence adds a progress token to the request. */
  onprogress?: (progress: Record<string, unknown>) => void;
  /** Progress restarts the timeout (default true when `onprogress` is set). */
  resetTimeoutOnProgress?: boolean;
  /** Routes the request onto an incoming request's stream (server-to-client requests on HTTP). */
  relatedRequestId?: RequestId;
  /**
   * How the request ends when it fails (an error response, a timeout, a cancellation, a failed send, the
   * connection closing): what it returns settles the request instead (a retry through `failed.resend`), what
   * it throws is the caller's error. One function shared by many requests costs a request nothing, where a
   * rejection handler on each request's promise costs a promise, a reaction and a closure per request in flight.
   */
  onfailure?: (error: unknown, failed: FailedRequest) => Promise<Result>;
  /**
   * What the peer's result becomes: its return settles the request (the result checked, or a promise of more
   * round trips through `sent.resend`), what it throws is the caller's error. As with `onfailure`, one function
   * shared by many requests costs a request nothing, where a reaction on each request's promise costs a
   * promise, a reaction and a closure per request in flight.
   */
  onresult?: (result: Result, sent: SentRequest) => Result | Promise<Result>;
}

/** A request sent, as `RequestOptions.onresult` and `onfailure` see it. */
export interface SentRequest {
  readonly method: string;
  /** The params it was sent with (a progress token included). */
  readonly params: Params;
  readonly options: RequestOptions | undefined;
  /** The caller's own state for this request (`Connection.requestTagged`), kept by `resend`. */
  readonly tag: unknown;
  /** When it was sent (epoch ms). */
  readonly startedAt: number;
  /** Sends the request again under a new id, with the same tag. */
  resend(params: Params, options?: RequestOptions): Promise<Result>;
}

/** A request that failed, as `RequestOptions.onfailure` sees it. */
export type FailedRequest = SentRequest;

/** An incoming request as its handler sees it; `Outgoing` types the requests it may send back to the peer. */
export interface RequestContext<Outgoing extends RequestMap = RequestMap> {
  readonly id: RequestId;
  readonly method: string;
  /** Fires when the peer cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  readonly extra: MessageExtra | undefined;
  /** Sends a notification tied to this request (progress, logs). */
  notify(method: string, params?: Params): Promise<void>;
  /** Sends a request to the peer tied to this request (sampling, elicitation, roots on a legacy session). */
  request<M extends keyof Outgoing & string>(
    method: M,
    ...args: RequestArguments<Outgoing[M]['params']>
  ): Promise<Outgoing[M]['result']>;
}

/** Incoming params stay `Params`: they are whatever the peer sent, for the handler to check. */
export type RequestHandler<Outgoing extends RequestMap = RequestMap> = (
  params: Params,
  context: RequestContext<Outgoing>,
) => Result | Promise<Result>;
export type NotificationHandler = (params: Params, extra: MessageExtra | undefined) => void | Promise<void>;

/** The sends a request context makes through its connection (a `Connection` is one). */
interface ContextSender {
  notify(method: string, params: Params, options: SendOptions): Promise<void>;
  request(method: string, params: Params, options: RequestOptions): Promise<Result>;
}

/** The bookkeeping of one request being served: its abort controller, made on first use. */
export interface Incoming {
  controller: AbortController | undefined;
  cancelled: boolean;
}

/**
 * The context of one incoming request. A class, not an object literal: on Node 20 a literal with a getter costs
 * about a microsecond to create. `notify` and `request` are own arrow functions so handlers may destructure them.
 */
export class IncomingContext<Outgoing extends RequestMap = RequestMap> implements RequestContext<Outgoing> {
  readonly notify: RequestContext['notify'];
  readonly request: RequestContext<Outgoing>['request'];
  readonly #incoming: Incoming;

  constructor(
    connection: ContextSender,
    readonly id: RequestId,
    readonly method: string,
    incoming: Incoming,
    readonly extra: MessageExtra | undefined,
  ) {
    this.#incoming = incoming;
    this.notify = (notifyMethod, params) => connection.notify(notifyMethod, params, { relatedRequestId: id });
    // Untyped underneath: the map's types were checked where `request` is called.
    this.request = ((requestMethod: string, params?: Params, options?: RequestOptions) =>
      connection.request(requestMethod, params, {
        ...options,
        relatedRequestId: id,
      })) as RequestContext<Outgoing>['request'];
  }

  // Created on first use: most handlers never look at their signal.
  get signal(): AbortSignal {
    const incoming = this.#incoming;
    incoming.controller ??= new AbortController();
    if (incoming.cancelled && !incoming.controller.signal.aborted) incoming.controller.abort();
    return incoming.controller.signal;
  }
}
