import { ErrorCode } from '../../../jsonrpc/errors.js';
import { type JSONRPCRequest, type RequestId, classify } from '../../../jsonrpc/messages.js';
import { Header } from '../../../mcp/meta.js';
import { Method } from '../../../mcp/methods.js';
import { allowsBatches, eraOf, isSupportedVersion } from '../../../mcp/revisions.js';
import { type MaybePromise, isPromise } from '../../../util/maybe-promise.js';
import { type HttpAuthOutcome, refuseUnauthorized, respondWith } from './auth.js';
import type { HttpExchange } from './exchange.js';
import { type HandlerContext, readJsonBody, reject, rejectInvalid } from './context.js';
import { openLegacySse, postLegacySse } from './legacy-routes.js';
import { type HttpServerOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { rejectForeignRequest } from './security.js';
import { StreamableSessionTransport } from './session-transport.js';
import { SessionRegistry, mintSessionId } from './sessions.js';
import { type Found, STORE_UNAVAILABLE, SharedSessions } from './shared-sessions.js';
import { serveStatelessRequest } from './stateless.js';
import type { HttpMcpServer } from './types.js';
import { paramHeaderLookup } from './validate.js';
import { type Accepts, parseAccept } from './wire.js';

/** A handshake-era version header: absent, or one of the handshake revisions we speak. */
function handshakeVersionHeader(exchange: HttpExchange): boolean {
  const version = exchange.header(Header.ProtocolVersion);
  return version === undefined || (isSupportedVersion(version) && eraOf(version) === 'handshake');
}

const ALLOW_ENDPOINT = { allow: 'GET, POST, DELETE' };

/**
 * The MCP endpoint, written once for every I/O edge: security checks, then routing by shape. A request carrying
 * per-request `_meta` (or a 2026-07-28 version header) is stateless; `initialize` or an `Mcp-Session-Id` is a
 * handshake-era session; the 2024-11-05 HTTP+SSE paths are served alongside.
 */
export class McpHttpHandler {
  readonly #context: HandlerContext;

  constructor(server: HttpMcpServer, options?: HttpServerOptions) {
    const resolved = resolveOptions(options);
    const sessions = new SessionRegistry(resolved);
    const store = resolved.sessionStore;
    this.#context = {
      server,
      options: resolved,
      sessions,
      shared: store && new SharedSessions(store, resolved, sessions, server),
      paramHeaders: paramHeaderLookup(server.toolInputSchema?.bind(server)),
      toolScopes: server.toolRequiredScopes?.bind(server),
    };
  }

  get options(): ResolvedOptions {
    return this.#context.options;
  }

  get sessionCount(): number {
    return this.#context.sessions.size;
  }

  /**
   * Never throws, and a returned promise never rejects: whatever goes wrong, the client gets an answer and the
   * server keeps serving. A request whose steps are all synchronous (a body already whole, a synchronous
   * handler, no auth guard) is answered before this returns, with no promise made on the way.
   */
  handle(exchange: HttpExchange): Promise<void> | undefined {
    let routed: Promise<void> | void;
    try {
      routed = this.#route(exchange);
    } catch (error) {
      this.#failed(exchange, error);
      return undefined;
    }
    return routed ? routed.then(undefined, (error: unknown) => this.#failed(exchange, error)) : undefined;
  }

  #failed(exchange: HttpExchange, error: unknown): void {
    this.#context.options.logger.error('HTTP handler failed', error);
    if (!exchange.responded) reject(exchange, 500, 'Internal error', ErrorCode.InternalError);
  }

  /** Ends every session (server shutdown). */
  close(): Promise<void> {
    return this.#context.sessions.closeAll();
  }

  #route(exchange: HttpExchange): Promise<void> | void {
    const { options } = this.#context;
    const guard = options.auth;
    // RFC 9728 metadata is public and fetched cross-origin (browser clients): served before the Origin check.
    const document = guard?.serve?.(exchange);
    if (document) return respondWith(exchange, document);
    const forbidden = rejectForeignRequest(options, exchange.header, exchange.urlHost);
    if (forbidden) return reject(exchange, 403, forbidden);
    const { path } = exchange;
    const legacy = path === options.ssePath || path === options.messagesPath;
    // Before authentication: a path we do not serve is absent for everyone (a 2025-03-26 client probing for
    // authorization-server metadata here must learn that, not that it needs a token).
    if (!legacy && options.path !== undefined && path !== options.path)
      return reject(exchange, 404, 'Not Found');
    // Before the body is read: an unauthenticated peer costs no buffer.
    if (guard) {
      // A guard that answers with a plain outcome (typed as a promise) is taken as it is, as `await` would.
      const outcome: MaybePromise<HttpAuthOutcome> = guard.authenticate(exchange);
      if (!isPromise(outcome)) return this.#admit(exchange, outcome, legacy);
      return outcome.then((settled) => this.#admit(exchange, settled, legacy));
    }
    return legacy ? this.#legacy(exchange) : this.#endpoint(exchange);
  }

  #admit(exchange: HttpExchange, outcome: HttpAuthOutcome, legacy: boolean): Promise<void> | void {
    if (!outcome.ok) return respondWith(exchange, outcome.response);
    exchange.authInfo = outcome.authInfo;
    exchange.principal = outcome.principal;
    exchange.credentialsConsumed = true;
    return legacy ? this.#legacy(exchange) : this.#endpoint(exchange);
  }

  /** 2024-11-05 HTTP+SSE: GET opens the stream, POST carries a message. */
  #legacy(exchange: HttpExchange): Promise<void> | void {
    const { path, method } = exchange;
    if (path === this.#context.options.ssePath) {
      if (method === 'GET') return openLegacySse(this.#context, exchange);
      return reject(exchange, 405, 'Method Not Allowed', undefined, undefined, { allow: 'GET' });
    }
    if (method === 'POST') return postLegacySse(this.#context, exchange);
    return reject(exchange, 405, 'Method Not Allowed', undefined, undefined, { allow: 'POST' });
  }

  #endpoint(exchange: HttpExchange): Promise<void> | void {
    switch (exchange.method) {
      case 'POST':
        return this.#post(exchange);
      case 'GET':
        return this.#get(exchange);
      case 'DELETE':
        return this.#delete(exchange);
      default:
        return reject(exchange, 405, 'Method Not Allowed', undefined, undefined, ALLOW_ENDPOINT);
    }
  }

  #post(exchange: HttpExchange): Promise<void> | void {
    const accepts = parseAccept(exchange.header('accept'));
    if (!accepts.json && !accepts.sse) {
      return reject(exchange, 406, 'Not Acceptable: accept application/json and text/event-stream');
    }
    const body = readJsonBody(exchange, this.#context.options);
    if (body instanceof Promise)
      return body.then((read) => read && this.#message(exchange, read.value, accepts));
    if (body) return this.#message(exchange, body.value, accepts);
  }

  /** A POST's parsed body, by what it is: a request, a notification, a response, or a batch. */
  #message(exchange: HttpExchange, value: unknown, accepts: Accepts): Promise<void> | void {
    const sessionId = exchange.header(Header.SessionId);
    if (Array.isArray(value)) return this.#batch(exchange, value, sessionId);
    const classified = classify(value);
    switch (classified.kind) {
      case 'invalid':
        return rejectInvalid(exchange, classified);
      case 'request': {
        const request = classified.message;
        const { server } = this.#context;
        if (server.isStatelessRequest(request)) return this.#stateless(exchange, request, accepts);
        if (sessionId !== undefined) return this.#sessionPost(exchange, sessionId, [request], false);
        if (request.method === Method.Initialize) return this.#initialize(exchange, request);
        if (!handshakeVersionHeader(exchange)) return this.#stateless(exchange, request, accepts);
        return reject(
          exchange,
          400,
          'Bad Request: Mcp-Session-Id header is required',
          ErrorCode.InvalidRequest,
          request.id,
        );
      }
      case 'notification':
        if (sessionId !== undefined)
          return this.#sessionPost(exchange, sessionId, [classified.message], false);
        // 2026-07-28 defines no client notifications over HTTP; accept and drop, as the transport rules say.
        if (!handshakeVersionHeader(exchange)) return exchange.respond(202, undefined);
        return reject(exchange, 400, 'Bad Request: Mcp-Session-Id header is required');
      default:
        if (sessionId !== undefined)
          return this.#sessionPost(exchange, sessionId, [classified.message], false);
        return reject(
          exchange,
          400,
          'Invalid Request: a response is not a request',
          ErrorCode.InvalidRequest,
        );
    }
  }

  /** Not async: the request's own promise is returned, not wrapped (a throw here rejects #post's promise). */
  #stateless(exchange: HttpExchange, request: JSONRPCRequest, accepts: Accepts): Promise<void> | undefined {
    const { server, options, paramHeaders, toolScopes } = this.#context;
    if (refuseUnauthorized(options.auth, exchange, [request], toolScopes)) return;
    return serveStatelessRequest(server, options, paramHeaders, exchange, request, accepts);
  }

  /** JSON-RPC batches: only inside a 2025-03-26 session, the one revision that had them. */
  async #batch(exchange: HttpExchange, values: unknown[], sessionId: string | undefined) {
    const lookup = sessionId === undefined ? undefined : this.#findSession(sessionId, exchange);
    const found = lookup instanceof Promise ? await lookup : lookup;
    if (found === STORE_UNAVAILABLE) return rejectUnavailable(exchange);
    const entry = found;
    if (!entry || !allowsBatches(entry.transport.protocolVersion ?? '')) {
      if (sessionId !== undefined && !entry)
        return reject(exchange, 404, 'Not Found: unknown or terminated session');
      return reject(
        exchange,
        400,
        'Invalid Request: JSON-RPC batches are not supported in this protocol revision',
      );
    }
    if (values.length === 0) return reject(exchange, 400, 'Invalid Request: empty batch');
    const messages = [];
    for (const value of values) {
      const classified = classify(value);
      if (classified.kind === 'invalid') return rejectInvalid(exchange, classified);
      messages.push(classified.message);
    }
    return this.#sessionPost(exchange, sessionId as string, messages, true);
  }

  /** The session held here, or (sessions shared) one restored from the store. Sync when nothing is shared. */
  #findSession(sessionId: string, exchange: HttpExchange): Found | Promise<Found> {
    const { shared, sessions } = this.#context;
    if (shared) return shared.find(sessionId, exchange);
    return sessions.get(sessionId, StreamableSessionTransport, exchange.principal);
  }

  /** A POST inside a handshake-era session (2025-03-26..2025-11-25 basic/transports: Session Management). */
  #sessionPost(
    exchange: HttpExchange,
    sessionId: string,
    messages: readonly object[],
    batch: boolean,
  ): Promise<void> | void {
    // Chained only when the lookup went to the store: a session held here is served in the same tick.
    const lookup = this.#findSession(sessionId, exchange);
    if (lookup instanceof Promise)
      return lookup.then((entry) => this.#sessionDeliver(exchange, sessionId, entry, messages, batch));
    return this.#sessionDeliver(exchange, sessionId, lookup, messages, batch);
  }

  #sessionDeliver(
    exchange: HttpExchange,
    sessionId: string,
    entry: Found,
    messages: readonly object[],
    batch: boolean,
  ) {
    if (entry === STORE_UNAVAILABLE) return rejectUnavailable(exchange);
    if (!entry) return reject(exchange, 404, 'Not Found: unknown or terminated session');
    if (!handshakeVersionHeader(exchange)) {
      return reject(
        exchange,
        400,
        `Bad Request: unsupported MCP-Protocol-Version ${exchange.header(Header.ProtocolVersion)}`,
      );
    }
    const { options, toolScopes } = this.#context;
    if (refuseUnauthorized(options.auth, exchange, messages, toolScopes)) return;
    const transport = entry.transport;
    const ids: RequestId[] = [];
    for (const message of messages) {
      if (!('method' in message) || !('id' in message)) continue;
      const request = message as JSONRPCRequest;
      if (request.method === Method.Initialize) {
        return reject(
          exchange,
          400,
          'Invalid Request: the session is already initialized',
          undefined,
          request.id,
        );
      }
      if (transport.hasRequest(request.id) || ids.includes(request.id)) {
        return reject(
          exchange,
          400,
          `Invalid Request: request id ${JSON.stringify(request.id)} is already in use`,
        );
      }
      ids.push(request.id);
    }
    this.#context.shared?.observe(sessionId, messages);
    if (ids.length === 0) {
      // 2025-11-25 basic/transports: notifications and responses only -> 202 Accepted, no body.
      transport.acceptOthers(exchange, messages);
      return exchange.respond(202, undefined);
    }
    transport.acceptRequests(exchange, messages, ids, batch);
  }

  async #initialize(exchange: HttpExchange, request: JSONRPCRequest): Promise<void> {
    const { sessions, server, options } = this.#context;
    if (!sessions.reserve()) {
      return reject(exchange, 503, 'Service Unavailable: too many sessions', undefined, request.id, {
        'retry-after': '5',
      });
    }
    const sessionId = mintSessionId();
    const transport = new StreamableSessionTransport(sessionId, options);
    let handle: Awaited<ReturnType<HttpMcpServer['connect']>>;
    try {
      handle = await server.connect(transport);
    } catch (error) {
      sessions.release();
      throw error;
    }
    const entry = { transport, handle, principal: exchange.principal };
    transport.ownedBy(exchange.principal);
    transport.expectInitialize(request.id);
    transport.acceptRequests(exchange, [request], [request.id], false, (response, stream) => {
      if (response && 'error' in response) {
        // No session is created by a rejected initialize.
        sessions.release();
        delete stream.headers[Header.SessionId];
        queueMicrotask(() => void handle.close().finally(() => transport.close()));
        return;
      }
      transport.onended = () => {
        sessions.delete(sessionId);
        this.#context.shared?.forget(sessionId);
      };
      sessions.add(sessionId, entry);
      const version = response?.result.protocolVersion;
      if (typeof version === 'string')
        void this.#context.shared?.record(sessionId, request.params, version, exchange.principal);
    });
  }

  async #get(exchange: HttpExchange) {
    const sessionId = exchange.header(Header.SessionId);
    // 2026-07-28: no GET stream; handshake-era clients name their session.
    if (sessionId === undefined)
      return reject(exchange, 405, 'Method Not Allowed', undefined, undefined, { allow: 'POST' });
    const lookup = this.#findSession(sessionId, exchange);
    const entry = lookup instanceof Promise ? await lookup : lookup;
    if (entry === STORE_UNAVAILABLE) return rejectUnavailable(exchange);
    if (!entry) return reject(exchange, 404, 'Not Found: unknown or terminated session');
    if (!parseAccept(exchange.header('accept')).sse)
      return reject(exchange, 406, 'Not Acceptable: accept text/event-stream');
    if (!handshakeVersionHeader(exchange)) {
      return reject(
        exchange,
        400,
        `Bad Request: unsupported MCP-Protocol-Version ${exchange.header(Header.ProtocolVersion)}`,
      );
    }
    const opened = entry.transport.openGet(exchange);
    const refusal = opened instanceof Promise ? await opened : opened;
    if (refusal !== undefined)
      reject(exchange, refusal, 'Conflict: the session already has an open GET stream');
  }

  async #delete(exchange: HttpExchange): Promise<void> {
    const sessionId = exchange.header(Header.SessionId);
    if (sessionId === undefined)
      return reject(exchange, 405, 'Method Not Allowed', undefined, undefined, { allow: 'POST' });
    const entry = await this.#findSession(sessionId, exchange);
    if (entry === STORE_UNAVAILABLE) return rejectUnavailable(exchange);
    if (!entry) return reject(exchange, 404, 'Not Found: unknown or terminated session');
    try {
      await this.#context.shared?.delete(sessionId);
      await this.#context.options.eventStore?.deleteSession(sessionId);
    } catch {
      return rejectUnavailable(exchange);
    }
    await this.#context.sessions.terminate(sessionId);
    exchange.respond(200, undefined);
  }
}

function rejectUnavailable(exchange: HttpExchange): void {
  reject(exchange, 503, 'Service Unavailable: the session store cannot be reached', undefined, undefined, {
    'retry-after': '1',
  });
}
