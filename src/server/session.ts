/**
 * Handshake era (2024-11-05 .. 2025-11-25): one session per connection. `initialize` negotiates the revision and
 * records the client's capabilities; server-to-client requests (sampling, elicitation, roots) ride the session.
 */
import { Connection, type Params, type RequestContext, type RequestHandler } from '../jsonrpc/connection.js';
import { ErrorCode, type LocalError, RpcError } from '../jsonrpc/errors.js';
import type { MessageExtra, Transport } from '../jsonrpc/transport.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { invalidParams } from '../mcp/errors.js';
import { mcpHooks } from '../mcp/hooks.js';
import { Notification } from '../mcp/methods.js';
import { negotiateHandshakeVersion } from '../mcp/revisions.js';
import {
  type ClientCapabilities,
  type Implementation,
  type JSONObject,
  LOGGING_LEVELS,
  type LoggingLevel,
} from '../mcp/types.js';
import type { RevisionCodec } from './codec.js';
import type { ServerCore } from './core.js';
import { type InputBackend, sessionInputBackend } from './input.js';
import type { IncomingRequest, SessionEnd } from './request-hook.js';
import type { EraRoute, HandshakeRouteScope, RouteTable, SessionControl } from './routes.js';
import type { ListChange } from './subscriptions.js';
import { isRecord } from '../util/record.js';

/** A handle on one handshake-era session (SEAMS.md). */
export interface ServerSession {
  close(): Promise<void>;
  readonly sessionId?: string;
  readonly protocolVersion: string | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
}

const MAX_RESOURCE_SUBSCRIPTIONS = 1000;

export class HandshakeSession implements ServerSession, SessionControl, SessionEnd {
  readonly connection: Connection;
  readonly #core: ServerCore;
  readonly #routes: RouteTable;
  #codec: RevisionCodec | undefined;
  #initialized = false;
  #clientCapabilities: ClientCapabilities = {};
  #clientInfo: Implementation | undefined;
  #logLevel: LoggingLevel | undefined;
  #sessionId: string | undefined;
  readonly #subscriptions = new Set<string>();

  constructor(core: ServerCore, routes: RouteTable, transport: Transport) {
    this.#core = core;
    this.#routes = routes;
    this.connection = new Connection(transport, { hooks: mcpHooks, logger: core.logger });
    this.connection.setNotificationHandler(Notification.Initialized, () => {
      this.#initialized = true;
    });
    this.bindRoutes();
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  get protocolVersion(): string | undefined {
    return this.#codec?.revision;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.#clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#clientInfo;
  }

  /** The threshold logging/setLevel set; undefined until then. */
  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel;
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /** `SessionEnd` (the request hook's view of the session): runs `listener` once the session closes. */
  onClose(listener: (reason: LocalError) => void): void {
    this.connection.onClose(listener);
  }

  /** list_changed to an initialized session (server/tools etc.: "listChanged" notifications). */
  listChanged(change: ListChange): void {
    if (!this.#initialized) return;
    const method =
      change === 'tools'
        ? Notification.ToolsListChanged
        : change === 'prompts'
          ? Notification.PromptsListChanged
          : Notification.ResourcesListChanged;
    this.connection.notify(method).catch(() => {});
  }

  resourceUpdated(uri: string): void {
    if (this.#initialized && this.#subscriptions.has(uri)) {
      this.connection.notify(Notification.ResourceUpdated, { uri }).catch(() => {});
    }
  }

  /**
   * Binds every handshake-era route of the table to the connection: at start, and again when an extension adds
   * routes while the session is open. A method no route serves is answered -32601 by the connection.
   */
  bindRoutes(): void {
    for (const route of this.#routes.handshake.values())
      this.connection.setRequestHandler(route.method, this.#handlerFor(route));
  }

  #handlerFor(route: EraRoute<HandshakeRouteScope>): RequestHandler {
    const beforeInitialize = route.beforeInitialize === true;
    return (params, context) => {
      const codec = this.#codec;
      if (!codec && !beforeInitialize)
        throw new RpcError(ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
      const scope = new SessionScope(this, this.#core, codec, params, context);
      const hook = this.#core.aroundRequest;
      if (hook === undefined) return route.handle(scope);
      const request: IncomingRequest = {
        method: route.method,
        id: context.id,
        params: isRecord(params) ? params : undefined,
        era: 'handshake',
        protocolVersion: scope.protocolVersion,
        extra: context.extra,
        session: this,
      };
      return hook(request, () => route.handle(scope));
    };
  }

  /** basic/lifecycle: negotiates the revision and records who the client is and what it can do. */
  initialize(params: Params, extra: MessageExtra | undefined): JSONObject {
    if (!isRecord(params)) throw invalidParams('initialize requires params');
    const revision = negotiateHandshakeVersion(params.protocolVersion);
    const codec = this.#core.codec(revision);
    this.#codec = codec;
    this.#clientCapabilities = isRecord(params.capabilities)
      ? (params.capabilities as ClientCapabilities)
      : {};
    this.#clientInfo = isRecord(params.clientInfo)
      ? (params.clientInfo as unknown as Implementation)
      : undefined;
    this.#sessionId = typeof extra?.sessionId === 'string' ? extra.sessionId : this.#sessionId;
    const result: JSONObject = {
      protocolVersion: revision,
      capabilities: codec.capabilities(this.#core.capabilities()),
      serverInfo: codec.serverInfo,
    };
    if (this.#core.instructions !== undefined) result.instructions = this.#core.instructions;
    return result;
  }

  /** server/utilities/logging: the threshold for this session's notifications/message. */
  setLogLevel(params: Params): JSONObject {
    const level = params?.level;
    if (!LOGGING_LEVELS.includes(level as LoggingLevel))
      throw invalidParams(`Invalid log level: ${String(level)}`);
    this.#logLevel = level as LoggingLevel;
    return {};
  }

  /** server/resources: Subscriptions (notifications/resources/updated on this session). */
  subscribe(params: Params, subscribe: boolean): JSONObject {
    const uri = params?.uri;
    if (typeof uri !== 'string') throw invalidParams('uri is required');
    if (!subscribe) this.#subscriptions.delete(uri);
    else if (this.#subscriptions.size < MAX_RESOURCE_SUBSCRIPTIONS || this.#subscriptions.has(uri))
      this.#subscriptions.add(uri);
    else throw invalidParams('too many resource subscriptions on this session');
    return {};
  }
}

/**
 * A handshake-era request's scope: what the session knows of the client when the request arrives. A class: on
 * Node 20 an object literal with a getter is slow to create.
 */
class SessionScope implements HandshakeRouteScope {
  readonly era = 'handshake';
  readonly requestId: RequestId;
  readonly extra: MessageExtra | undefined;
  readonly meta: JSONObject | undefined;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | 'all';
  readonly inputRound = 0;
  readonly #codec: RevisionCodec | undefined;
  readonly #context: RequestContext;
  #input: InputBackend | undefined;

  constructor(
    readonly session: HandshakeSession,
    readonly core: ServerCore,
    codec: RevisionCodec | undefined,
    readonly params: Params,
    context: RequestContext,
  ) {
    this.#codec = codec;
    this.#context = context;
    this.requestId = context.id;
    this.extra = context.extra;
    this.meta = isRecord(params?._meta) ? params._meta : undefined;
    this.protocolVersion = codec?.revision ?? '';
    this.clientCapabilities = session.clientCapabilities;
    this.clientInfo = session.clientInfo;
    // Until logging/setLevel, the session has no threshold: every level is sent.
    this.logLevel = session.logLevel ?? 'all';
  }

  /** Only the lifecycle routes run before initialize, and they never read the codec. */
  get codec(): RevisionCodec {
    if (!this.#codec) throw new RpcError(ErrorCode.InternalError, 'no revision negotiated yet');
    return this.#codec;
  }

  /** Made on first use: most requests never ask the client for anything. */
  get input(): InputBackend {
    const hook = this.core.aroundOutgoingRequest;
    this.#input ??= sessionInputBackend(
      this.#context,
      () => this.session.clientCapabilities,
      hook && { hook, protocolVersion: this.protocolVersion, extra: this.extra },
    );
    return this.#input;
  }

  /** The connection creates the AbortController on first read; most handlers never look. */
  get signal(): AbortSignal {
    return this.#context.signal;
  }

  notify(method: string, params: JSONObject): Promise<void> {
    return this.#context.notify(method, params);
  }
}
