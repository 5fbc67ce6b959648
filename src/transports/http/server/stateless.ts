import { LocalError, toWireError } from '../../../jsonrpc/errors.js';
import type { JSONRPCNotification, JSONRPCRequest, JSONRPCResponse } from '../../../jsonrpc/messages.js';
import { stringifyMessage } from '../../../jsonrpc/serialise.js';
import type { MessageExtra } from '../../../jsonrpc/transport.js';
import type { StatelessRequestContext } from '../../../mcp/request-context.js';
import { isPromise } from '../../../util/maybe-promise.js';
import type { HttpExchange, SseSink } from './exchange.js';
import type { ResolvedOptions } from './options.js';
import type { HttpMcpServer } from './types.js';
import { type ParamHeaderLookup, validateStatelessRequest } from './validate.js';
import { type Accepts, SSE_KEEPALIVE, errorResponse, sseMessage, statusForResponse } from './wire.js';

/**
 * The answer to one 2026-07-28 request: plain JSON when the response is the only thing to send, or, from the
 * first request-scoped notification on, an SSE stream of its own (notifications first, the response last, then
 * the stream ends). The decision is made lazily, so a handler that reports nothing costs one JSON write.
 */
class StatelessReply {
  #sink: SseSink | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #finished = false;
  readonly #exchange: HttpExchange;
  readonly #accepts: Accepts;
  readonly #keepAliveMs: number;
  readonly #onLost: () => void;

  constructor(exchange: HttpExchange, accepts: Accepts, keepAliveMs: number, onLost: () => void) {
    this.#exchange = exchange;
    this.#accepts = accepts;
    this.#keepAliveMs = keepAliveMs;
    this.#onLost = onLost;
  }

  notify(notification: JSONRPCNotification): void {
    if (this.#finished) return;
    // A client that cannot read SSE gets only the response (it broke the spec's Accept rule; drop, do not fail).
    if (!this.#accepts.sse) return;
    if (!this.#sink) this.#open();
    this.#sink?.write(sseMessage(stringifyMessage(notification)));
  }

  finish(response: JSONRPCResponse): void {
    if (this.#finished) return;
    this.#finished = true;
    const json = stringifyMessage(response);
    if (this.#sink || !this.#accepts.json) {
      // A client that reads only SSE gets even a lone response as a one-event stream.
      this.#sink ??= this.#exchange.openSse(undefined);
      if (this.#keepAlive) clearInterval(this.#keepAlive);
      this.#sink.write(sseMessage(json));
      this.#sink.end();
    } else {
      this.#exchange.respond(statusForResponse(response), undefined, json);
    }
  }

  #open(): void {
    const sink = this.#exchange.openSse(undefined);
    sink.onclose = () => {
      if (this.#keepAlive) clearInterval(this.#keepAlive);
      this.#onLost();
    };
    this.#sink = sink;
    if (this.#keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), this.#keepAliveMs);
      this.#keepAlive.unref?.();
    }
  }
}

/**
 * One 2026-07-28 request being served, and the context its handler sees. The abort signal is made only if
 * someone asks for it (an AbortController per request is a measurable cost on the hot path); an abort before
 * that is remembered. A class, not an object literal: on Node 20 a literal with a getter is slow to create.
 */
class StatelessCall implements StatelessRequestContext {
  readonly extra: MessageExtra;
  aborted = false;
  readonly #reply: StatelessReply;
  #controller: AbortController | undefined;

  constructor(exchange: HttpExchange, accepts: Accepts, keepAliveMs: number) {
    this.extra = exchange.extra();
    this.#reply = new StatelessReply(exchange, accepts, keepAliveMs, this.abort);
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.aborted && !this.#controller.signal.aborted) this.#controller.abort(CANCELLED());
    return this.#controller.signal;
  }

  readonly notify = (notification: JSONRPCNotification): void => this.#reply.notify(notification);

  readonly abort = (): void => {
    if (this.aborted) return;
    this.aborted = true;
    this.#controller?.abort(CANCELLED());
  };

  finish(response: JSONRPCResponse): void {
    this.#reply.finish(response);
  }
}

const CANCELLED = () => new LocalError('cancelled', 'the client closed the response stream');

/**
 * 2026-07-28 basic/transports/streamable-http: validate the headers against the body, dispatch, answer. Closing
 * the response (JSON pending or SSE open) is the cancellation signal: the handler's signal aborts. A handler
 * that answers at once is answered at once: no promise, and no abort listener (nothing can close the response
 * before the event loop turns).
 */
export function serveStatelessRequest(
  server: HttpMcpServer,
  options: ResolvedOptions,
  paramHeaders: ParamHeaderLookup,
  exchange: HttpExchange,
  request: JSONRPCRequest,
  accepts: Accepts,
): Promise<void> | undefined {
  const rejection = validateStatelessRequest(request, exchange.header, paramHeaders);
  if (rejection) {
    const body = errorResponse(request.id, rejection.code, rejection.message, rejection.data);
    exchange.respond(400, undefined, JSON.stringify(body));
    return undefined;
  }
  const call = new StatelessCall(exchange, accepts, options.keepAliveMs);
  let response: JSONRPCResponse | Promise<JSONRPCResponse>;
  try {
    response = server.handleStatelessRequest(request, call);
  } catch (error) {
    response = failed(request, error);
  }
  if (!isPromise(response)) {
    answer(exchange, call, response);
    return undefined;
  }
  exchange.onAbort(call.abort);
  return response.then(
    (settled) => answer(exchange, call, settled),
    (error: unknown) => answer(exchange, call, failed(request, error)),
  );
}

function failed(request: JSONRPCRequest, error: unknown): JSONRPCResponse {
  const wire = toWireError(error);
  return errorResponse(request.id, wire.code, wire.message, wire.data);
}

function answer(exchange: HttpExchange, call: StatelessCall, response: JSONRPCResponse): void {
  // 2026-07-28 basic/patterns/cancellation: nothing more is sent for a cancelled request.
  if (call.aborted) {
    // Settles the web edge's pending Response; node has already dropped the socket.
    exchange.respond(499, undefined);
    return;
  }
  call.finish(response);
}
