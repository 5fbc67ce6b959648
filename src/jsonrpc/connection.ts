import { type Logger, silentLogger } from '../util/logger.js';
import { ErrorCode, LocalError, RpcError, toWireError } from './errors.js';
import { DeadlineTimer, NEVER, clockMs } from './deadlines.js';
import {
  type Incoming,
  IncomingContext,
  type NotificationHandler,
  type Params,
  type RequestArguments,
  type RequestHandler,
  type RequestMap,
  type RequestOptions,
  type Result,
} from './incoming.js';
import { type ProtocolHooks, noHooks } from './hooks.js';
import {
  type Pending,
  RequestKinds,
  type Resend,
  cancelledError,
  captureResolve,
  capturedResolve,
  deadlineOf,
  hasDeadline,
  sentDeadline,
  failBeforeSending,
  failPending,
  resolvePending,
  timeoutError,
} from './pending.js';
import { PendingTable } from './pending-table.js';
import { RequestTable } from './request-table.js';
import { SendWatch, sendSafely } from './send-watch.js';
import { SignalWatch } from './signal-watch.js';
import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
  kindOf,
} from './messages.js';
import type { MessageExtra, SendOptions, Transport } from './transport.js';

export type {
  NotificationHandler,
  Params,
  FailedRequest,
  RequestArguments,
  RequestContext,
  RequestHandler,
  RequestMap,
  RequestOptions,
  RequestTypes,
  Result,
  SentRequest,
} from './incoming.js';

export interface ConnectionOptions {
  hooks?: ProtocolHooks;
  defaultTimeoutMs?: number;
  logger?: Logger;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The JSON-RPC engine: owns request ids, the id -> pending table, timeouts, cancellation and dispatch of incoming
 * requests and notifications. Knows nothing of MCP beyond the hooks it is given. `Outgoing` types `request`
 * (method, params, result) from a protocol's request map; results are the peer's and are not checked here.
 */
export class Connection<Outgoing extends RequestMap = RequestMap> {
  readonly #transport: Transport;
  readonly #hooks: ProtocolHooks;
  readonly #logger: Logger;
  readonly #defaultTimeoutMs: number;
  readonly #pending = new PendingTable();
  readonly #kinds = new RequestKinds();
  readonly #incoming = new RequestTable<Incoming>();
  readonly #requestHandlers = new Map<string, RequestHandler<Outgoing>>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #deadlines = new DeadlineTimer((now) => this.#expire(now));
  readonly #signals = new SignalWatch((id, signal) => {
    const pending = this.#pending.get(id);
    if (pending) this.#cancelOutgoing(id, cancelledError(pending.kind.method, signal.reason), signal.reason);
  });
  #fallbackRequestHandler: ((method: string) => RequestHandler<Outgoing> | undefined) | undefined;
  readonly #sends = new SendWatch((ids, error) => {
    for (const id of ids) {
      const pending = this.#settle(id);
      if (!pending) continue;
      const failure = new LocalError('transport_error', `failed to send ${pending.kind.method}`, {
        cause: error,
      });
      failPending(this.#resend, pending, failure);
    }
  });
  #nextId = 1;
  #closed: LocalError | undefined;
  #closing: Promise<void> | undefined;
  #closeListeners: Array<(error: LocalError) => void> = [];

  constructor(transport: Transport, options: ConnectionOptions = {}) {
    this.#transport = transport;
    this.#hooks = options.hooks ?? noHooks;
    this.#logger = options.logger ?? silentLogger;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    transport.onmessage = (message, extra) => this.#receive(message, extra);
    transport.onclose = (reason) => this.#onTransportClosed(reason);
    transport.onerror = (error) => this.#onTransportError(error);
    transport.onpostfailed = (error, ids) => this.#sends.postFailed(ids, error);
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Counts of live bookkeeping entries; all zero on an idle or closed connection (no leaks). */
  get stats(): { pending: number; incoming: number } {
    return { pending: this.#pending.size, incoming: this.#incoming.size };
  }

  start(): Promise<void> {
    return this.#transport.start();
  }

  onClose(listener: (error: LocalError) => void): void {
    if (this.#closed) listener(this.#closed);
    else this.#closeListeners.push(listener);
  }

  setRequestHandler(method: string, handler: RequestHandler<Outgoing>): void {
    this.#requestHandlers.set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.#notificationHandlers.set(method, handler);
  }

  /** Resolves handlers for methods not registered one by one (a server routing by its own table). */
  setFallbackRequestHandler(resolve: (method: string) => RequestHandler<Outgoing> | undefined): void {
    this.#fallbackRequestHandler = resolve;
  }

  request<M extends keyof Outgoing & string>(
    method: M,
    ...[params, options]: RequestArguments<Outgoing[M]['params']>
  ): Promise<Outgoing[M]['result']> {
    return this.#send(method, params, options, undefined);
  }

  /**
   * As `request`, with the caller's state for this one request: `tag` comes back in the `SentRequest` the
   * options' `onresult` and `onfailure` receive, so functions shared by every request need no closure per
   * request in flight.
   */
  requestTagged(method: string, params: Params, options: RequestOptions, tag: unknown): Promise<Result> {
    return this.#send(method, params, options, tag);
  }

  readonly #resend: Resend = (method, params, options, tag) => this.#send(method, params, options, tag);

  #send(method: string, params: Params, options: RequestOptions | undefined, tag: unknown): Promise<Result> {
    if (this.#closed) return failBeforeSending(this.#closed, method, params, options, tag, this.#resend);
    const signal = options?.signal;
    if (signal?.aborted) {
      const error = cancelledError(method, signal.reason);
      return failBeforeSending(error, method, params, options, tag, this.#resend);
    }
    const id = this.#nextId;
    this.#nextId = id === Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    const outgoingParams = options?.onprogress ? this.#hooks.withProgressToken(params, id) : params;
    const message: JSONRPCRequest =
      outgoingParams === undefined
        ? { jsonrpc: '2.0', id, method }
        : { jsonrpc: '2.0', id, method, params: outgoingParams };
    const promise = new Promise<Result>(captureResolve);
    const now = clockMs();
    const kind = this.#kinds.kindOf(method, outgoingParams, options, tag, now);
    this.#pending.add(id, kind, outgoingParams, capturedResolve());
    const deadline = deadlineOf(options, now, this.#defaultTimeoutMs, now);
    if (deadline !== NEVER) this.#deadlines.hold(deadline);
    if (signal) this.#signals.add(signal, id);
    const sendOptions =
      options?.relatedRequestId === undefined ? undefined : { relatedRequestId: options.relatedRequestId };
    const written = this.#sends.send(this.#transport, message, id, sendOptions);
    if (written !== undefined) this.#pending.setSent(id, written);
    return promise;
  }

  notify(method: string, params?: Params, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closed);
    const message: JSONRPCNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.#transport.send(message, options);
  }

  /** Closes the transport; pending requests reject with `connection_closed`, handlers in flight are aborted. */
  close(): Promise<void> {
    // Every caller waits for the same shutdown: a second close() must not return while a spawned server is
    // still being stopped by the first.
    if (this.#closing) return this.#closing;
    if (this.#closed) return Promise.resolve();
    this.#shutdown(new LocalError('connection_closed', 'connection closed'));
    this.#closing = this.#transport.close();
    return this.#closing;
  }

  /** Times out every request whose deadline has passed; returns the next deadline. */
  #expire(now: number): number {
    let next = Number.POSITIVE_INFINITY;
    // Requests sent while expiring (a retry from `onfailure`) are not visited: their timer is armed as they are sent.
    for (const id of this.#pending.keys()) {
      const pending = this.#pending.get(id);
      if (pending === undefined) continue;
      const sent = sentDeadline(pending, this.#defaultTimeoutMs);
      if (sent === NEVER) continue;
      const deadline = this.#deadlines.of(id, sent);
      if (deadline > now) {
        next = Math.min(next, deadline);
        continue;
      }
      this.#cancelOutgoing(id, timeoutError(pending, now, this.#defaultTimeoutMs), 'timeout');
    }
    return next;
  }

  /** Removes a pending entry and its timer/listener; false if it was already settled. */
  #settle(id: RequestId): Pending | undefined {
    const pending = this.#pending.take(id);
    if (!pending) return undefined;
    if (hasDeadline(pending.kind.options, this.#defaultTimeoutMs)) this.#deadlines.release(id);
    const signal = pending.kind.options?.signal;
    if (signal) this.#signals.delete(signal, id);
    return pending;
  }

  #cancelOutgoing(id: RequestId, error: LocalError, reason: unknown): void {
    const pending = this.#settle(id);
    if (!pending) return;
    failPending(this.#resend, pending, error);
    if (this.#closed) return;
    if (this.#transport.cancelRequest?.(id, reason)) return;
    const text = typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : undefined;
    const notification = this.#hooks.cancelNotification(id, text);
    if (notification) this.#transport.send(notification).catch(() => {});
  }

  #receive(value: unknown, extra: MessageExtra | undefined): void {
    const kind = kindOf(value);
    if (typeof kind !== 'string') {
      this.#logger.warn(`invalid message: ${kind.reason}`);
      // Answer even when no id could be read (a batch on a revision without batches): the peer learns why
      // instead of waiting. The id is then omitted, as the 2025-11-25+ schemas allow.
      this.#sendError(kind.id, { code: ErrorCode.InvalidRequest, message: kind.reason });
      return;
    }
    switch (kind) {
      case 'request':
        this.#onRequest(value as JSONRPCRequest, extra);
        return;
      case 'notification':
        this.#onNotification(value as JSONRPCNotification, extra);
        return;
      case 'result': {
        const { id, result } = value as JSONRPCResultResponse;
        const pending = this.#settle(id);
        if (pending) resolvePending(this.#resend, pending, result);
        else this.#logger.debug(`dropped response for unknown or settled id ${id}`);
        return;
      }
      case 'error':
        this.#onErrorResponse(value as JSONRPCErrorResponse);
        return;
    }
  }

  #onErrorResponse(message: JSONRPCErrorResponse): void {
    const id = message.id;
    const pending = id === undefined || id === null ? undefined : this.#settle(id);
    if (pending) failPending(this.#resend, pending, RpcError.fromObject(message.error));
    else this.#logger.warn(`peer reported an error: ${message.error.code} ${message.error.message}`);
  }

  #onNotification(message: JSONRPCNotification, extra: MessageExtra | undefined): void {
    const cancelledId = this.#hooks.cancelledRequestId(message);
    if (cancelledId !== undefined) {
      const incoming = this.#incoming.get(cancelledId);
      if (incoming && !incoming.cancelled) {
        incoming.cancelled = true;
        incoming.controller?.abort(new LocalError('cancelled', 'request cancelled by the peer'));
      }
    }
    const token = this.#hooks.progressToken(message);
    if (token !== undefined) this.#onProgress(token, message.params ?? {});
    const handler = this.#notificationHandlers.get(message.method);
    if (!handler) return;
    try {
      const done = handler(message.params, extra);
      if (done instanceof Promise)
        done.catch((error: unknown) => this.#logger.error(`notification ${message.method}`, error));
    } catch (error) {
      this.#logger.error(`notification ${message.method}`, error);
    }
  }

  #onProgress(token: RequestId, params: Record<string, unknown>): void {
    const pending = this.#pending.get(token);
    const onprogress = pending?.kind.options?.onprogress;
    if (!pending || !onprogress) return;
    const options = pending.kind.options;
    if (options?.resetTimeoutOnProgress !== false && hasDeadline(options, this.#defaultTimeoutMs))
      this.#deadlines.move(token, deadlineOf(options, pending.kind.startedAt, this.#defaultTimeoutMs));
    try {
      onprogress(params);
    } catch (error) {
      this.#logger.error('progress callback threw', error);
    }
  }

  #onRequest(message: JSONRPCRequest, extra: MessageExtra | undefined): void {
    const { id, method } = message;
    if (this.#incoming.get(id) !== undefined) {
      this.#sendError(id, {
        code: ErrorCode.InvalidRequest,
        message: `duplicate request id ${JSON.stringify(id)}`,
      });
      return;
    }
    const handler = this.#requestHandlers.get(method) ?? this.#fallbackRequestHandler?.(method);
    if (!handler) {
      this.#sendError(id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${method}` });
      return;
    }
    const incoming: Incoming = { controller: undefined, cancelled: false };
    this.#incoming.set(id, incoming);
    const context = new IncomingContext<Outgoing>(this, id, method, incoming, extra);
    let outcome: Result | Promise<Result>;
    try {
      outcome = handler(message.params, context);
    } catch (error) {
      this.#finishIncoming(id, incoming, undefined, error);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (result) => this.#finishIncoming(id, incoming, result, undefined),
        (error: unknown) => this.#finishIncoming(id, incoming, undefined, error),
      );
    } else {
      this.#finishIncoming(id, incoming, outcome, undefined);
    }
  }

  #finishIncoming(id: RequestId, incoming: Incoming, result: Result | undefined, error: unknown): void {
    if (this.#incoming.get(id) === incoming) this.#incoming.delete(id);
    // The peer cancelled: it expects no answer (basic/utilities/cancellation).
    if (incoming.cancelled || this.#closed) return;
    if (error !== undefined || result === undefined) {
      if (!(error instanceof RpcError)) this.#logger.debug(`handler for request ${id} failed`, error);
      this.#sendError(id, toWireError(error ?? new Error('handler returned no result')));
      return;
    }
    const response: JSONRPCResultResponse = { jsonrpc: '2.0', id, result };
    this.#deliver(response, id).catch((sendError: unknown) => {
      this.#logger.warn(`failed to send response ${id}`, sendError);
    });
  }

  #sendError(id: RequestId | null, error: JSONRPCErrorResponse['error']): void {
    const response: JSONRPCErrorResponse | JSONRPCMessage =
      id === null ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
    this.#deliver(response, id ?? undefined).catch((sendError: unknown) => {
      this.#logger.warn(`failed to send error response ${id}`, sendError);
    });
  }

  #deliver(message: JSONRPCMessage, id: RequestId | undefined): Promise<void> {
    return sendSafely(this.#transport, message, id === undefined ? undefined : { relatedRequestId: id });
  }

  /** A transport error that names a request (`data.requestId`) fails that request; others are logged. */
  #onTransportError(error: Error): void {
    const id =
      error instanceof LocalError
        ? (error.data as { requestId?: unknown } | undefined)?.requestId
        : undefined;
    const pending = typeof id === 'string' || typeof id === 'number' ? this.#settle(id) : undefined;
    if (pending) failPending(this.#resend, pending, error);
    else this.#logger.warn(`transport: ${error.message}`);
  }

  #onTransportClosed(reason: Error | undefined): void {
    if (this.#closed) return;
    const message = reason ? `connection closed: ${reason.message}` : 'connection closed';
    this.#shutdown(new LocalError('connection_closed', message, { cause: reason }));
  }

  #shutdown(error: LocalError): void {
    this.#closed = error;
    for (const id of this.#pending.keys()) {
      const pending = this.#settle(id);
      if (pending) failPending(this.#resend, pending, error);
    }
    this.#deadlines.stop();
    this.#signals.clear();
    for (const id of this.#incoming.keys()) {
      const incoming = this.#incoming.get(id);
      if (incoming === undefined) continue;
      incoming.cancelled = true;
      incoming.controller?.abort(error);
    }
    this.#incoming.clear();
    const listeners = this.#closeListeners;
    this.#closeListeners = [];
    for (const listener of listeners) listener(error);
  }
}
