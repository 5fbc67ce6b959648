/**
 * Both eras over one stdio channel (2026-07-28 basic/transports/stdio: Backward Compatibility). Each incoming
 * message is routed by its shape: `server/discover` or a request with a per-request protocol version goes the
 * stateless way; everything else (initialize, session traffic, answers to our requests) goes to the handshake
 * session.
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '../jsonrpc/messages.js';
import { kindOf } from '../jsonrpc/messages.js';
import type { MessageExtra, SendOptions, Transport } from '../jsonrpc/transport.js';
import { LocalError } from '../jsonrpc/errors.js';
import { RequestTable } from '../jsonrpc/request-table.js';
import { Notification } from '../mcp/methods.js';
import { isRequestId } from '../jsonrpc/messages.js';
import type { JSONRPCNotification } from '../jsonrpc/messages.js';
import type { JSONRPCResponse } from '../jsonrpc/messages.js';
import type { ResponseSink } from './stateless.js';

/** What the channel needs of the server: which requests are stateless, and serving one. */
export interface DualEraTarget {
  isStatelessRequest(message: JSONRPCRequest): boolean;
  /** The response when ready at once; else undefined, and the sink's `respond` gets it. */
  serveStatelessRequest(request: JSONRPCRequest, sink: ResponseSink): JSONRPCResponse | undefined;
}

/**
 * Sits between a real transport and the handshake session: stateless requests are answered here, the rest is
 * passed through. The session sees an ordinary Transport.
 */
export class DualEraChannel implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];

  readonly #inner: Transport;
  readonly #target: DualEraTarget;
  /** By id: a client numbers its requests 1, 2, 3, ..., so a ring holds them without hashing (RequestTable). */
  readonly #inflight = new RequestTable<InflightRequest>();
  /** The send promise of the latest response, until it settles. */
  #lastSent: Promise<void> | undefined;
  #closed = false;

  constructor(inner: Transport, target: DualEraTarget) {
    this.#inner = inner;
    this.#target = target;
    inner.onmessage = (message, extra) => this.#route(message, extra);
    inner.onclose = (reason) => this.#onInnerClose(reason);
    inner.onerror = (error) => this.onerror?.(error);
  }

  /** Stateless requests being served (for tests and shutdown). */
  get inflight(): number {
    return this.#inflight.size;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #route(value: unknown, extra: MessageExtra | undefined): void {
    // The kind alone: no object made per message (the value is the message when it is valid).
    const kind = kindOf(value);
    if (kind === 'request' && this.#target.isStatelessRequest(value as JSONRPCRequest)) {
      this.#serveStateless(value as JSONRPCRequest, extra);
      return;
    }
    if (kind === 'notification' && (value as JSONRPCNotification).method === Notification.Cancelled) {
      const id = (value as JSONRPCNotification).params?.requestId;
      const inflight = isRequestId(id) ? this.#inflight.get(id) : undefined;
      if (inflight) {
        // basic/patterns/cancellation: the cancelled request gets no response.
        inflight.abort(new LocalError('cancelled', 'request cancelled by the client'));
        return;
      }
    }
    this.onmessage?.(value, extra);
  }

  #serveStateless(request: JSONRPCRequest, extra: MessageExtra | undefined): void {
    if (this.#inflight.get(request.id) !== undefined) {
      this.#sendQuietly({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32600, message: `duplicate request id ${JSON.stringify(request.id)}` },
      });
      return;
    }
    const inflight = new InflightRequest(this.#host, extra);
    const response = this.#target.serveStatelessRequest(request, inflight);
    // Answered synchronously: never registered, so nothing can cancel it and nothing is left to clean up.
    if (response !== undefined) this.#sendQuietly(response);
    else this.#inflight.set(request.id, inflight);
  }

  /** What every in-flight request of this channel shares: where its messages go and how it ends. */
  readonly #host: InflightHost = {
    send: (message) => this.#sendQuietly(message),
    answered: (inflight, response) => {
      // A request's every response carries its id: the entry needs no copy of it.
      const id = response.id as RequestId;
      if (this.#inflight.get(id) === inflight) this.#inflight.delete(id);
      // A cancelled request is not answered; a subscription ended by the server is (graceful closure).
      if (inflight.aborted) return;
      try {
        this.#sendQuietly(response);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    },
  };

  /**
   * A failed send is reported, once per write: a transport that can post takes the message without a promise;
   * otherwise the responses of a batch share its one promise (the stdio writer returns one per tick) instead of
   * adding a reaction each.
   */
  readonly #sendQuietly = (message: JSONRPCMessage): void => {
    if (this.#closed) return;
    const inner = this.#inner;
    if (isPosting(inner)) {
      // No promise at all: the transport reports a failure to its onerror, which is ours.
      try {
        inner.post(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
      return;
    }
    const sent = inner.send(message);
    if (sent === this.#lastSent) return;
    this.#lastSent = sent;
    sent.then(
      () => {
        if (this.#lastSent === sent) this.#lastSent = undefined;
      },
      (error: unknown) => {
        if (this.#lastSent === sent) this.#lastSent = undefined;
        this.onerror?.(error as Error);
      },
    );
  };

  #onInnerClose(reason: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const id of this.#inflight.keys())
      this.#inflight.get(id)?.abort(new LocalError('connection_closed', 'stdio closed'));
    this.#inflight.clear();
    this.onclose?.(reason);
  }
}

/** A transport that can send without a promise, reporting a failure to its `onerror` (the stdio server's). */
interface PostingTransport extends Transport {
  post(message: JSONRPCMessage): string | undefined;
}

function isPosting(transport: Transport): transport is PostingTransport {
  return typeof (transport as Partial<PostingTransport>).post === 'function';
}

interface InflightHost {
  send(message: JSONRPCMessage): void;
  answered(inflight: InflightRequest, response: JSONRPCResponse): void;
}

/**
 * A stateless request being served, the context its handler sees, and where its response goes once ready. The
 * abort signal is made only if someone asks for it: most handlers never look, and an AbortController per request
 * is a measurable share of a small call's cost.
 */
class InflightRequest implements ResponseSink {
  readonly extra: MessageExtra | undefined;
  readonly #host: InflightHost;
  /** Nothing until aborted or asked for a signal: then the controller, or the reason of an abort none asked for. */
  #abort: AbortController | Aborted | undefined;

  constructor(host: InflightHost, extra: MessageExtra | undefined) {
    this.#host = host;
    this.extra = extra;
  }

  get aborted(): boolean {
    const abort = this.#abort;
    return abort !== undefined && (abort instanceof Aborted || abort.signal.aborted);
  }

  respond(response: JSONRPCResponse): void {
    this.#host.answered(this, response);
  }

  get signal(): AbortSignal {
    const abort = this.#abort;
    if (abort instanceof AbortController) return abort.signal;
    const controller = new AbortController();
    if (abort !== undefined) controller.abort(abort.reason);
    this.#abort = controller;
    return controller.signal;
  }

  notify(notification: JSONRPCNotification): void {
    if (!this.aborted) this.#host.send(notification);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    if (this.#abort instanceof AbortController) this.#abort.abort(reason);
    else this.#abort = new Aborted(reason);
  }
}

/** Why a request whose signal no one asked for was aborted. */
class Aborted {
  constructor(readonly reason: unknown) {}
}
