/**
 * Handshake era (2024-11-05 .. 2025-11-25): one session per connection. `initialize` negotiates the revision and
 * records the client's capabilities; server-to-client requests (sampling, elicitation, roots) ride the session.
 */
import { Connection, type Params, type RequestContext, type RequestHandler } from '../jsonrpc/connection.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { MessageExtra, Transport } from '../jsonrpc/transport.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { invalidParams } from '../mcp/errors.js';
import { mcpHooks } from '../mcp/hooks.js';
import { Method, Notification } from '../mcp/methods.js';
import { negotiateHandshakeVersion } from '../mcp/revisions.js';
import {
  type ClientCapabilities,
  type Implementation,
  type JSONObject,
  LOGGING_LEVELS,
  type LoggingLevel,
} from '../mcp/types.js';
import type { RevisionCodec } from './codec.js';
import type { RequestScope } from './context.js';
import type { ServerCore } from './core.js';
import { type InputBackend, sessionInputBackend } from './input.js';
import * as ops from './operations.js';
import type { ListChange } from './subscriptions.js';

/** A handle on one handshake-era session (SEAMS.md). */
export interface ServerSession {
  close(): Promise<void>;
  readonly sessionId?: string;
  readonly protocolVersion: string | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
}

const MAX_RESOURCE_SUBSCRIPTIONS = 1000;

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class HandshakeSession implements ServerSession {
  readonly connection: Connection;
  readonly #core: ServerCore;
  #codec: RevisionCodec | undefined;
  #initialized = false;
  #clientCapabilities: ClientCapabilities = {};
  #clientInfo: Implementation | undefined;
  #logLevel: LoggingLevel | undefined;
  #sessionId: string | undefined;
  readonly #subscriptions = new Set<string>();

  constructor(core: ServerCore, transport: Transport) {
    this.#core = core;
    this.connection = new Connection(transport, { hooks: mcpHooks, logger: core.logger });
    this.#register();
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

  close(): Promise<void> {
    return this.connection.close();
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

  #register(): void {
    const on = (
      method: string,
      handler: (params: Params, context: RequestContext, codec: RevisionCodec) => unknown,
    ) => {
      this.connection.setRequestHandler(method, ((params, context) => {
        const codec = this.#codec;
        if (!codec)
          throw new RpcError(ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
        return handler(params, context, codec);
      }) as RequestHandler);
    };
    this.connection.setRequestHandler(Method.Initialize, (params, context) =>
      this.#initialize(params, context),
    );
    this.connection.setRequestHandler(Method.Ping, () => ({}));
    this.connection.setNotificationHandler(Notification.Initialized, () => {
      this.#initialized = true;
    });
    on(Method.LoggingSetLevel, (params) => this.#setLevel(params));
    on(Method.ResourcesSubscribe, (params) => this.#subscribe(params, true));
    on(Method.ResourcesUnsubscribe, (params) => this.#subscribe(params, false));
    on(Method.ToolsList, (params, _context, codec) => ops.listTools(this.#core, codec, params));
    on(Method.PromptsList, (params, _context, codec) => ops.listPrompts(this.#core, codec, params));
    on(Method.ResourcesList, (params, _context, codec) => ops.listResources(this.#core, codec, params));
    on(Method.ResourcesTemplatesList, (params, _c, codec) =>
      ops.listResourceTemplates(this.#core, codec, params),
    );
    on(Method.CompletionComplete, (params, _context, codec) => ops.complete(this.#core, codec, params));
    on(Method.ToolsCall, (params, context, codec) =>
      ops.callTool(this.#core, codec, this.#scope(context, params), params),
    );
    on(Method.PromptsGet, (params, context, codec) =>
      ops.getPrompt(this.#core, codec, this.#scope(context, params), params),
    );
    on(Method.ResourcesRead, (params, context, codec) =>
      ops.readResource(this.#core, codec, this.#scope(context, params), params),
    );
    // Extension wiring point: methods an installed extension adds (gated on `initialize` capabilities).
    for (const method of this.#core.extensions.methodNames()) {
      on(method, async (params, context, codec) => {
        const scope = this.#scope(context, params);
        return codec.finish(await this.#core.extensions.handle({ method, params, scope, codec }));
      });
    }
  }

  #initialize(params: Params, context: RequestContext): JSONObject {
    if (!isObject(params)) throw invalidParams('initialize requires params');
    const revision = negotiateHandshakeVersion(params.protocolVersion);
    const codec = this.#core.codec(revision);
    this.#codec = codec;
    this.#clientCapabilities = isObject(params.capabilities)
      ? (params.capabilities as ClientCapabilities)
      : {};
    this.#clientInfo = isObject(params.clientInfo)
      ? (params.clientInfo as unknown as Implementation)
      : undefined;
    this.#sessionId =
      typeof context.extra?.sessionId === 'string' ? context.extra.sessionId : this.#sessionId;
    const result: JSONObject = {
      protocolVersion: revision,
      capabilities: codec.capabilities(this.#core.capabilities()),
      serverInfo: codec.serverInfo,
    };
    if (this.#core.instructions !== undefined) result.instructions = this.#core.instructions;
    return result;
  }

  #setLevel(params: Params): JSONObject {
    const level = params?.level;
    if (!LOGGING_LEVELS.includes(level as LoggingLevel))
      throw invalidParams(`Invalid log level: ${String(level)}`);
    this.#logLevel = level as LoggingLevel;
    return {};
  }

  #subscribe(params: Params, subscribe: boolean): JSONObject {
    const uri = params?.uri;
    if (typeof uri !== 'string') throw invalidParams('uri is required');
    if (!subscribe) this.#subscriptions.delete(uri);
    else if (this.#subscriptions.size < MAX_RESOURCE_SUBSCRIPTIONS || this.#subscriptions.has(uri))
      this.#subscriptions.add(uri);
    else throw invalidParams('too many resource subscriptions on this session');
    return {};
  }

  #scope(context: RequestContext, params: Params): RequestScope {
    return new SessionScope(
      context,
      isObject(params?._meta) ? params._meta : undefined,
      this.#codec?.revision ?? '',
      this.#clientCapabilities,
      this.#clientInfo,
      // Until logging/setLevel, the session has no threshold: every level is sent.
      this.#logLevel ?? 'all',
      sessionInputBackend(context, () => this.#clientCapabilities),
    );
  }
}

/** A handshake-era request's scope. A class: on Node 20 an object literal with a getter is slow to create. */
class SessionScope implements RequestScope {
  readonly era = 'handshake';
  readonly requestId: RequestId;
  readonly extra: MessageExtra | undefined;
  readonly inputRound = 0;
  readonly #context: RequestContext;

  constructor(
    context: RequestContext,
    readonly meta: JSONObject | undefined,
    readonly protocolVersion: string,
    readonly clientCapabilities: ClientCapabilities,
    readonly clientInfo: Implementation | undefined,
    readonly logLevel: LoggingLevel | 'all',
    readonly input: InputBackend,
  ) {
    this.#context = context;
    this.requestId = context.id;
    this.extra = context.extra;
  }

  /** The connection creates the AbortController on first read; most handlers never look. */
  get signal(): AbortSignal {
    return this.#context.signal;
  }

  notify(method: string, params: JSONObject): Promise<void> {
    return this.#context.notify(method, params);
  }
}
