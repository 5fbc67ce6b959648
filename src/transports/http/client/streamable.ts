import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { EventSourceMessage } from 'eventsource-parser';
import { LocalError } from '../../../mcp/local-errors.js';
import { stringifyMessage } from '../../../jsonrpc/serialise.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '../../../jsonrpc/messages.js';
import type { Transport } from '../../../jsonrpc/transport.js';
import { Header } from '../../../mcp/meta.js';
import { type Logger, silentLogger } from '../../../util/logger.js';
import { copyTraceHeaders } from '../header-values.js';
import { type GetStreamHost, GetStreams, type StreamState } from './get-stream.js';
import { ERROR_BODY_CAP, HttpStatusError, errorHeadersOf } from './errors.js';
import type { HttpRequestDescription, StreamableHttpClientOptions, StreamableHttpMode } from './options.js';
import { PostExchange, type PostHost } from './post-exchange.js';
import { addRequestMetadata } from './request-headers.js';
import { ToolHeaderMirror } from './tool-headers.js';
import { isResponseTo, parseErrorResponse } from './wire.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  contentTypeOf,
  headerOf,
  openRequest,
  readBody,
  readSse,
  requestTarget,
  type RequestTarget,
  startRequest,
} from './node-http.js';

const ACCEPT_BOTH = 'application/json, text/event-stream';
/**
 * The client side of Streamable HTTP: one POST per message, answered by a JSON body or a per-request SSE
 * stream. Cancelling a request destroys its HTTP request, which is the 2026-07-28 cancellation signal.
 */
export class StreamableHttpClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** The server ended the session (404 on a request that carried its id); the client should re-initialize. */
  onsessionexpired?: () => void;

  readonly url: URL;
  mode: StreamableHttpMode;
  /** The negotiated handshake-era version, sent as `MCP-Protocol-Version` in session mode. */
  protocolVersion: string | undefined;
  #sessionId: string | undefined;
  readonly #options: StreamableHttpClientOptions;
  readonly #logger: Logger;
  readonly #maxBytes: number;
  readonly #target: RequestTarget;
  readonly #active = new Map<RequestId, PostExchange>();
  readonly #lifetime = new AbortController();
  #retryMs: number;
  #closed = false;
  readonly #toolHeaders: ToolHeaderMirror;
  readonly #getStreams: GetStreams;
  readonly #postHost: PostHost;

  constructor(url: string | URL, options: StreamableHttpClientOptions = {}) {
    this.url = new URL(url);
    this.#target = requestTarget(this.url);
    this.mode = options.mode ?? 'stateless';
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#retryMs = options.defaultRetryMs ?? 1000;
    this.#toolHeaders = new ToolHeaderMirror(this.#logger);
    this.#getStreams = new GetStreams(this.#getStreamHost());
    this.#postHost = this.#makePostHost();
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Forgets the session (before a fresh initialize). */
  resetSession(): void {
    this.#sessionId = undefined;
    this.protocolVersion = undefined;
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new LocalError('not_connected', 'HTTP transport is closed'));
    if (!('method' in message && 'id' in message)) return this.#sendOther(message);
    // Only tools/list and tools/call take part in header mirroring; every other request goes straight out.
    if (this.mode === 'stateless' && this.#toolHeaders.mirrors(message))
      return this.#toolHeaders.send(message, this.#post);
    return this.#post(message);
  }

  cancelRequest(id: RequestId): boolean {
    // A call still waiting for the tools/list that precedes it is never sent.
    if (this.#toolHeaders.cancel(id)) return true;
    const active = this.#active.get(id);
    if (!active) return false;
    active.abort(new LocalError('cancelled', 'request cancelled'));
    // 2025-11-25: a dropped stream is not a cancellation; the connection must also send notifications/cancelled.
    return this.mode === 'stateless';
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const active of this.#active.values()) active.abort(new LocalError('connection_closed', 'closed'));
    this.#active.clear();
    this.#lifetime.abort(new LocalError('connection_closed', 'closed'));
    if (this.mode === 'session' && this.#sessionId) await this.#deleteSession(this.#sessionId);
    this.onclose?.();
  }

  /** A fresh copy of the caller's headers (Object.assign: a spread plus a key is slow on Node 20). */
  #baseHeaders(): OutgoingHttpHeaders {
    const extra = this.#options.headers;
    return extra === undefined ? {} : Object.assign({}, extra);
  }

  #sessionHeaders(accept: string): OutgoingHttpHeaders {
    const headers = this.#baseHeaders();
    headers.accept = accept;
    if (this.#sessionId) headers[Header.SessionId] = this.#sessionId;
    if (this.protocolVersion) headers[Header.ProtocolVersion] = this.protocolVersion;
    return headers;
  }

  #headers(message: JSONRPCMessage, accept: string): OutgoingHttpHeaders {
    const headers =
      this.mode === 'session' ? this.#sessionHeaders(accept) : this.#statelessHeaders(message, accept);
    if ('method' in message) copyTraceHeaders(message.params?._meta, headers);
    return headers;
  }

  #statelessHeaders(message: JSONRPCMessage, accept: string): OutgoingHttpHeaders {
    const headers = this.#baseHeaders();
    headers.accept = accept;
    addRequestMetadata(headers, message, this.#toolHeaders.registry, this.#options.requestHeaders);
    return headers;
  }

  /** Merges the per-request header hook's answer (authorization, DPoP proofs) into `headers`. */
  async #hookHeaders(headers: OutgoingHttpHeaders, method: HttpRequestDescription['method']): Promise<void> {
    const hook = this.#options.httpHeaders;
    if (hook) Object.assign(headers, await hook({ method, url: this.url }));
  }

  /**
   * One POST of a request; settles when its answer has been delivered (or it failed). A call costs one promise
   * here: from send to the request written there is no async frame, and the answer comes back by callbacks.
   */
  readonly #post = (message: JSONRPCRequest): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const mirrored = this.mode === 'stateless' && this.#toolHeaders.mirrors(message);
      this.#start(new PostExchange(this.#postHost, message, mirrored, resolve, reject));
    });

  #start(exchange: PostExchange): void {
    const message = exchange.message;
    this.#active.set(message.id, exchange);
    try {
      const headers = this.#headers(message, ACCEPT_BOTH);
      headers['content-type'] = 'application/json';
      exchange.sentSession = headers[Header.SessionId] as string | undefined;
      if (this.#options.httpHeaders === undefined) this.#open(exchange, headers);
      else
        this.#hookHeaders(headers, 'POST').then(
          () => this.#open(exchange, headers),
          (error: unknown) => exchange.fail(error),
        );
    } catch (error) {
      exchange.fail(error);
    }
  }

  #open(exchange: PostExchange, headers: OutgoingHttpHeaders): void {
    // Cancelled while the header hook ran: it is never sent.
    if (exchange.aborted) {
      exchange.fail(undefined);
      return;
    }
    try {
      const body = stringifyMessage(exchange.message);
      exchange.request = startRequest(
        this.#target,
        { method: 'POST', headers, body, agent: this.#options.agent },
        exchange,
      );
    } catch (error) {
      exchange.fail(error);
    }
  }

  #makePostHost(): PostHost {
    return {
      href: this.#target.href,
      maxBytes: this.#maxBytes,
      responded: (response) => this.#captureSession(response),
      deliverText: (text) => this.#deliverText(text),
      otherResponse: (exchange, response) => this.#otherResponse(exchange, response),
      ended: (exchange, failed) => {
        const id = exchange.message.id;
        if (this.#active.get(id) === exchange) this.#active.delete(id);
        if (!exchange.mirrored) return undefined;
        if (failed) this.#toolHeaders.forget(id);
        else if (this.#toolHeaders.ended(id)) return this.#toolHeaders.resend(exchange.message, this.#post);
        return undefined;
      },
    };
  }

  /** Every answer to a POST but a 2xx JSON body (PostExchange takes that one itself). */
  async #otherResponse(exchange: PostExchange, response: IncomingMessage): Promise<void> {
    const { message, sentSession } = exchange;
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      const type = contentTypeOf(response);
      if (type === 'text/event-stream') return this.#readRequestStream(response, exchange);
      await readBody(response, ERROR_BODY_CAP).catch(() => '');
      throw new LocalError(
        'protocol_error',
        `HTTP ${status} (${type || 'no content type'}) answered ${message.method} without a response`,
      );
    }
    const body = await readBody(response, ERROR_BODY_CAP).catch(() => '');
    if (status === 404 && sentSession !== undefined && this.mode === 'session') {
      // Only the session this request carried is gone: a newer one (renewed meanwhile) stays.
      if (this.#sessionId === sentSession) {
        this.#sessionId = undefined;
        this.onsessionexpired?.();
      }
      throw new HttpStatusError(status, body, { sessionExpired: sentSession, method: message.method });
    }
    const errorHeaders = errorHeadersOf(response);
    // An authorization challenge is for the client's auth layer, whatever the body says (RFC 6750 §3).
    if (status === 401 || (status === 403 && errorHeaders['www-authenticate'] !== undefined))
      throw new HttpStatusError(status, body, { method: message.method, headers: errorHeaders });
    // A JSON-RPC error in a 4xx/5xx body is the answer (2026-07-28 puts modern errors behind 400/404), but a
    // 405 means this URL takes no POST at all (an HTTP+SSE endpoint): the status is what the caller must see
    // to fall back (2026-07-28 streamable-http: Backward Compatibility).
    const error = status === 405 ? undefined : parseErrorResponse(body, message.id);
    if (error) {
      this.#deliver(error);
      return;
    }
    throw new HttpStatusError(status, body, { method: message.method, headers: errorHeaders });
  }

  async #readRequestStream(response: IncomingMessage, exchange: PostExchange): Promise<void> {
    const { message, request } = exchange;
    const state = { answered: false, lastEventId: undefined as string | undefined };
    let failure: unknown;
    try {
      await readSse(response, this.#sseHandlers(message.id, state, request), this.#maxBytes);
    } catch (error) {
      failure = error;
    }
    if (state.answered || exchange.aborted) return;
    if (failure instanceof LocalError && failure.code === 'response_too_large') throw failure;
    // 2025-11-25 basic/transports: Resumability and Redelivery, always by GET with Last-Event-ID.
    if (this.mode === 'session' && state.lastEventId !== undefined) {
      return this.#getStreams.resume(
        message,
        state as StreamState & { lastEventId: string },
        exchange.signal,
      );
    }
    throw new LocalError(
      'connection_closed',
      `the server closed the stream before answering ${message.method}`,
      { cause: failure },
    );
  }

  #sseHandlers(id: RequestId | undefined, state: StreamState, request?: ClientRequest) {
    return {
      onevent: (event: EventSourceMessage) => {
        if (event.id !== undefined) state.lastEventId = event.id;
        if (event.event !== undefined && event.event !== 'message') return;
        if (event.data.trim() === '') return;
        const value = this.#parse(event.data);
        if (value === undefined) return;
        this.#deliver(value);
        if (id !== undefined && isResponseTo(value, id)) {
          state.answered = true;
          // The answer is in; a stream that lingers (a resumed GET) is not ours to keep.
          if (request) queueMicrotask(() => request.destroy());
        }
      },
      onretry: (ms: number) => {
        this.#retryMs = ms;
      },
    };
  }

  /**
   * 2025-11-25: the standalone GET stream for server-initiated messages (session mode only), kept open across
   * drops; see src/transports/http/client/get-stream.ts.
   */
  openEventStream(): void {
    if (this.mode === 'session') this.#getStreams.open();
  }

  /**
   * Resolves once the GET stream answered: true when it is open (server messages can flow), false when the
   * server has none or it is not running. Subscribing waits for it so no early notification is lost.
   */
  eventStreamReady(): Promise<boolean> {
    return this.#getStreams.ready();
  }

  /** The transport's side of the GET streams: session headers, the header hook, SSE reading and delivery. */
  #getStreamHost(): GetStreamHost {
    return {
      closed: () => this.#closed,
      retryMs: () => this.#retryMs,
      maxReconnectAttempts: this.#options.maxReconnectAttempts ?? 5,
      lifetime: this.#lifetime.signal,
      logger: this.#logger,
      open: async (lastEventId, signal) => {
        const headers = this.#sessionHeaders('text/event-stream');
        if (lastEventId !== undefined) headers[Header.LastEventId] = lastEventId;
        if (this.#options.httpHeaders) await this.#hookHeaders(headers, 'GET');
        return openRequest(this.#target, { method: 'GET', headers, signal, agent: this.#options.agent });
      },
      read: (response, awaitedId, state, request) =>
        readSse(response, this.#sseHandlers(awaitedId, state, request), this.#maxBytes),
    };
  }

  async #sendOther(message: JSONRPCMessage): Promise<void> {
    const headers = this.#headers(message, ACCEPT_BOTH);
    headers['content-type'] = 'application/json';
    if (this.#options.httpHeaders) await this.#hookHeaders(headers, 'POST');
    const opened = openRequest(this.#target, {
      method: 'POST',
      headers,
      body: stringifyMessage(message),
      signal: this.#lifetime.signal,
      agent: this.#options.agent,
    });
    const response = await opened.response;
    this.#captureSession(response);
    const body = await readBody(response, ERROR_BODY_CAP).catch(() => '');
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300)
      throw new HttpStatusError(status, body, { headers: errorHeadersOf(response) });
  }

  #captureSession(response: IncomingMessage): void {
    if (this.mode !== 'session') return;
    const id = headerOf(response, Header.SessionId);
    if (id && !this.#sessionId) this.#sessionId = id;
  }

  async #deleteSession(sessionId: string): Promise<void> {
    const headers: OutgoingHttpHeaders = { ...this.#options.headers, [Header.SessionId]: sessionId };
    if (this.protocolVersion) headers[Header.ProtocolVersion] = this.protocolVersion;
    try {
      if (this.#options.httpHeaders) await this.#hookHeaders(headers, 'DELETE');
      const opened = openRequest(this.#target, {
        method: 'DELETE',
        headers,
        signal: AbortSignal.timeout(2000),
        agent: this.#options.agent,
      });
      const response = await opened.response;
      response.resume();
    } catch (error) {
      this.#logger.debug('session DELETE failed', error);
    }
  }

  /** Every message from the server passes here: header mirroring reads tools/list and HeaderMismatch. */
  #deliver(message: unknown): void {
    const delivered =
      this.mode === 'stateless' ? this.#toolHeaders.received(message as JSONRPCMessage) : message;
    if (delivered !== undefined) this.onmessage?.(delivered);
  }

  #deliverText(text: string): void {
    const value = this.#parse(text);
    if (value === undefined) return;
    if (Array.isArray(value)) for (const item of value) this.#deliver(item);
    else this.#deliver(value);
  }

  #parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      this.onerror?.(
        new LocalError('protocol_error', `invalid JSON from the server: ${(error as Error).message}`),
      );
      return undefined;
    }
  }
}
