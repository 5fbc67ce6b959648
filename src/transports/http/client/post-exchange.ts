import type { ClientRequest, IncomingMessage } from 'node:http';
import type { JSONRPCRequest } from '../../../jsonrpc/messages.js';
import type { LocalError } from '../../../mcp/local-errors.js';
import { type ResponseSink, bufferedBody, contentTypeOf, readBody, requestFailure } from './node-http.js';

/** What a POST needs of its transport. */
export interface PostHost {
  readonly href: string;
  readonly maxBytes: number;
  /** The head of a response arrived (a session id to keep, in session mode). */
  responded(response: IncomingMessage): void;
  /** Delivers the messages of a whole JSON body. */
  deliverText(text: string): void;
  /** Every answer but a 2xx JSON body: a request's SSE stream, an error status, an unexpected type. */
  otherResponse(exchange: PostExchange, response: IncomingMessage): Promise<void>;
  /** The POST is over; a promise when the request goes on (a call sent again after HeaderMismatch). */
  ended(exchange: PostExchange, failed: boolean): Promise<void> | undefined;
}

const WAITING = 0;
const RESPONDED = 1;
const OVER = 2;

/**
 * One POST of a JSON-RPC request, from the request written to its answer delivered, driven by callbacks: node's
 * 'response' and 'error' events reach it through node-http's shared listeners, and a JSON answer that came whole
 * with its head is delivered in a microtask after the read that parsed it. The promise `send` returns is the only one a call
 * costs the transport. Cancelling destroys the HTTP request directly: no AbortController (and no abort listener
 * inside node:http) per request; a signal exists only if a resumed stream needs one.
 */
export class PostExchange implements ResponseSink {
  readonly message: JSONRPCRequest;
  /** A tools/list or tools/call in stateless mode: header mirroring sees its end. */
  readonly mirrored: boolean;
  request: ClientRequest | undefined;
  /** The `Mcp-Session-Id` the request carried: a 404 ends that session only. */
  sentSession: string | undefined;
  aborted = false;
  readonly #host: PostHost;
  readonly #resolve: () => void;
  readonly #reject: (error: unknown) => void;
  #controller: AbortController | undefined;
  #state = WAITING;

  constructor(
    host: PostHost,
    message: JSONRPCRequest,
    mirrored: boolean,
    resolve: () => void,
    reject: (error: unknown) => void,
  ) {
    this.#host = host;
    this.message = message;
    this.mirrored = mirrored;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  abort(reason: LocalError): void {
    if (this.aborted) return;
    this.aborted = true;
    // The same error node:http raises for an aborted signal, so the failure reads as a cancellation.
    const error = new Error(reason.message, { cause: reason });
    error.name = 'AbortError';
    this.request?.destroy(error);
    this.#controller?.abort(reason);
  }

  onresponse(response: IncomingMessage): void {
    this.#state = RESPONDED;
    this.#host.responded(response);
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300 && contentTypeOf(response) === 'application/json') {
      // Node emits the head before it parses the body that came in the same read; that body is in once the
      // read's callback has returned. A microtask, not the next tick: taken in a tick, the answer reaches the
      // caller only after node has put the socket back in the pool, so a sequential caller's next request
      // waits behind that and goes out on the same connection, which made the sequential HTTP rows slower
      // against agentforge's server (bench/NOTES-perf.md).
      queueMicrotask(() => takeJson(this, response));
      return;
    }
    this.#host.otherResponse(this, response).then(
      () => this.#end(),
      (error: unknown) => this.fail(error),
    );
  }

  onfailure(error: NodeJS.ErrnoException): void {
    // Once the head is in, whoever reads the body reports how it ends (node raises socket errors here too).
    if (this.#state === WAITING) this.fail(requestFailure('POST', this.#host.href, error));
  }

  /** The whole JSON body of a 2xx answer. */
  answer(text: string): void {
    // The answer is whole: nothing is left to cancel. A close() racing the delivery must not destroy the
    // request, which would raise an error on a response no reader listens to any more.
    this.request = undefined;
    try {
      this.#host.deliverText(text);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.#end();
  }

  /** Ends the request with `error`, or quietly when it was cancelled. */
  fail(error: unknown): void {
    if (this.#state === OVER) return;
    this.#state = OVER;
    this.#host.ended(this, true);
    if (this.aborted) this.#resolve();
    else this.#reject(error);
  }

  #end(): void {
    if (this.#state === OVER) return;
    this.#state = OVER;
    const next = this.#host.ended(this, false);
    if (next === undefined) this.#resolve();
    else next.then(this.#resolve, this.#reject);
  }

  /** The byte cap on a JSON body. */
  get maxBytes(): number {
    return this.#host.maxBytes;
  }
}

/** A JSON body that came whole is taken at once; one still arriving (or over the cap) goes to the reader. */
function takeJson(exchange: PostExchange, response: IncomingMessage): void {
  // Cancelled meanwhile: node has dumped the body, and the request ends quietly.
  if (exchange.aborted) {
    exchange.fail(undefined);
    return;
  }
  const text = bufferedBody(response, exchange.maxBytes);
  if (text !== undefined) {
    exchange.answer(text);
    return;
  }
  readBody(response, exchange.maxBytes).then(
    (body) => exchange.answer(body),
    (error: unknown) => exchange.fail(error),
  );
}
