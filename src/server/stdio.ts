/**
 * Both eras over one stdio channel (2026-07-28 basic/transports/stdio: Backward Compatibility). Each incoming
 * message is routed by its shape: `server/discover` or a request with a per-request protocol version goes the
 * stateless way; everything else (initialize, session traffic, answers to our requests) goes to the handshake
 * session.
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '../jsonrpc/messages.js';
import { classify } from '../jsonrpc/messages.js';
import type { MessageExtra, SendOptions, Transport } from '../jsonrpc/transport.js';
import { LocalError } from '../jsonrpc/errors.js';
import { Notification } from '../mcp/methods.js';
import { isRequestId } from '../jsonrpc/messages.js';
import type { JSONRPCNotification, JSONRPCResponse } from '../jsonrpc/messages.js';
import type { StatelessContext } from './stateless.js';

export interface DualEraTarget {
  isStatelessRequest(message: JSONRPCRequest): boolean;
  handleStatelessRequest(request: JSONRPCRequest, context: StatelessContext): Promise<JSONRPCResponse>;
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
  readonly #inflight = new Map<RequestId, AbortController>();
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
    const classified = classify(value);
    if (classified.kind === 'request' && this.#target.isStatelessRequest(classified.message)) {
      this.#serveStateless(classified.message, extra);
      return;
    }
    if (classified.kind === 'notification' && classified.message.method === Notification.Cancelled) {
      const id = classified.message.params?.requestId;
      const controller = isRequestId(id) ? this.#inflight.get(id) : undefined;
      if (controller) {
        // basic/patterns/cancellation: the cancelled request gets no response.
        controller.abort(new LocalError('cancelled', 'request cancelled by the client'));
        return;
      }
    }
    this.onmessage?.(value, extra);
  }

  #serveStateless(request: JSONRPCRequest, extra: MessageExtra | undefined): void {
    if (this.#inflight.has(request.id)) {
      this.#sendQuietly({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32600, message: `duplicate request id ${JSON.stringify(request.id)}` },
      });
      return;
    }
    const controller = new AbortController();
    this.#inflight.set(request.id, controller);
    const notify = (notification: JSONRPCNotification) => {
      if (!controller.signal.aborted) this.#sendQuietly(notification);
    };
    const context: StatelessContext = { signal: controller.signal, notify };
    if (extra !== undefined) context.extra = extra;
    this.#target
      .handleStatelessRequest(request, context)
      .then((response) => {
        // A cancelled request is not answered; a subscription ended by the server is (graceful closure).
        if (!controller.signal.aborted) this.#sendQuietly(response);
      })
      .finally(() => {
        if (this.#inflight.get(request.id) === controller) this.#inflight.delete(request.id);
      });
  }

  #sendQuietly(message: JSONRPCMessage): void {
    if (this.#closed) return;
    this.#inner.send(message).catch((error: unknown) => this.onerror?.(error as Error));
  }

  #onInnerClose(reason: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inflight.values())
      controller.abort(new LocalError('connection_closed', 'stdio closed'));
    this.#inflight.clear();
    this.onclose?.(reason);
  }
}
