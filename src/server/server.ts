import type { Transport } from '../jsonrpc/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../mcp/revisions.js';
import type { Icon, Implementation, JSONObject, ServerCapabilities } from '../mcp/types.js';
import { UriTemplate } from '../mcp/uri-template.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { StdioServerTransport, type StdioServerTransportOptions } from '../transports/stdio/server.js';
import { type Cache, type RevisionCodec, buildCodecs } from './codec.js';
import type { FetchHandler, HttpServerOptions, NodeHandler } from '../transports/http/server/index.js';
import { type EventBus, InMemoryEventBus, type ServerEvent } from './event-bus.js';
import { lazyFetchHandler, lazyNodeHandler } from './lazy-http.js';
import { InstalledExtensions, type ServerExtension, extensionRoutes } from './extension.js';
import { type ListenOptions, type Listening, listenOn } from './listen.js';
import type {
  ListFilter,
  PromptDefinition,
  ResourceDefinition,
  ServerCore,
  TemplateDefinition,
  ToolDefinition,
} from './core.js';
import { Collection, pick } from './registry.js';
import type { OutgoingRequestHook, RequestHook } from './request-hook.js';
import { RequestStateSealer, type RequestStateOptions } from './request-state.js';
import { definePrompt, defineTool } from './define.js';
import { CORE_ROUTES, RouteTable } from './routes.js';
import { type ServerSeam, attachSeam } from './seam.js';
import { HandshakeSession, type ServerSession } from './session.js';
import { StatelessDispatcher, isStatelessRequest } from './stateless.js';
import { DualEraChannel, type DualEraTarget } from './stdio.js';
import { type ListChange, ListenHub } from './subscriptions.js';
import type {
  CacheHints,
  PromptArgs,
  PromptConfig,
  PromptHandler,
  RegisteredHandle,
  ResourceHandler,
  ResourceMetadata,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
  SchemaInput,
  ToolArgs,
  ToolConfig,
  ToolHandler,
  ToolStructuredContent,
} from './types.js';

export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Guidance for the model about this server (initialize / server/discover `instructions`). */
  instructions?: string;
}

export interface McpServerOptions {
  /** Items per tools/resources/prompts list page (default 500). */
  pageSize?: number;
  /** Default caching hints on list/read/discover results (default ttlMs 0, cacheScope "private"). */
  cache?: CacheHints;
  /** requestState sealing: key (default random per process) and lifetime. */
  requestState?: RequestStateOptions;
  /** Concurrent subscriptions/listen streams (default 100). */
  maxListens?: number;
  /**
   * Runs around every request the server answers, in either era (agentforge/otel's `serverTracing()` makes
   * a SERVER span of each); see `RequestHook`.
   */
  aroundRequest?: RequestHook;
  /**
   * Runs around every request the server makes of the client on a handshake-era session (agentforge/otel's
   * `clientRequestTracing()` makes a CLIENT span of each); see `OutgoingRequestHook`.
   */
  aroundOutgoingRequest?: OutgoingRequestHook;
  /**
   * Where list_changed and resources/updated go, so every instance's listen streams and sessions see them
   * (default: this process only). `RedisEventBus` from agentforge/redis shares them between instances.
   */
  eventBus?: EventBus;
  /** Extra capabilities to advertise (experimental, extensions). */
  capabilities?: ServerCapabilities;
  /**
   * Which entries of tools/list, prompts/list, resources/list and resources/templates/list a caller sees (a
   * gateway's per-principal policy); the name is the tool or prompt name, the resource URI or the template name.
   * Lists are then built per request and marked private. Calls are not filtered: a handler checks its caller.
   */
  listFilter?: ListFilter;
  logger?: Logger;
}

const TOOL_FIELDS = ['title', 'description', 'annotations', 'icons', '_meta'] as const;
const RESOURCE_FIELDS = [
  'title',
  'description',
  'mimeType',
  'size',
  'annotations',
  'icons',
  '_meta',
] as const;
const PROMPT_FIELDS = ['title', 'description', 'arguments', 'icons', '_meta'] as const;

/**
 * An MCP server that speaks every revision from 2024-11-05 to 2026-07-28 at once: handshake sessions through
 * `connect`, both eras on one channel with `serve` / `serveStdio`, and over HTTP with `listen`.
 */
export class McpServer {
  readonly #core: ServerCore;
  readonly #codecs: Map<string, RevisionCodec>;
  readonly #listens: ListenHub;
  readonly #routes: RouteTable;
  readonly #seam: ServerSeam;
  /** What a dual-era channel (stdio) serves through: the stateless requests answered where they arrive. */
  readonly #channelTarget: DualEraTarget;
  readonly #sessions = new Set<HandshakeSession>();
  readonly #extraCapabilities: ServerCapabilities;
  readonly #extensions = new InstalledExtensions();
  readonly #bus: EventBus;
  #pendingChanges = new Set<ListChange>();

  constructor(info: McpServerInfo, options: McpServerOptions = {}) {
    const { instructions, ...implementation } = info;
    const serverInfo = implementation as Implementation;
    this.#codecs = buildCodecs(SUPPORTED_PROTOCOL_VERSIONS, serverInfo);
    this.#extraCapabilities = options.capabilities ?? {};
    const defaultCache: Cache = {
      ttlMs: Math.max(0, Math.floor(options.cache?.ttlMs ?? 0)),
      cacheScope: options.cache?.cacheScope ?? 'private',
    };
    const changed = (change: ListChange) => () => this.#listChanged(change);
    const codecs = this.#codecs;
    const capabilities = () => this.#capabilities();
    this.#listens = new ListenHub(options.maxListens ?? 100);
    this.#core = {
      serverInfo,
      instructions,
      tools: new Collection<ToolDefinition>(toolWire, changed('tools')),
      resources: new Collection<ResourceDefinition>(resourceWire, changed('resources')),
      templates: new Collection<TemplateDefinition>(templateWire, changed('resources')),
      prompts: new Collection<PromptDefinition>(promptWire, changed('prompts')),
      listFilter: options.listFilter,
      pageSize: Math.max(1, Math.floor(options.pageSize ?? 500)),
      defaultCache,
      sealer: new RequestStateSealer(options.requestState),
      logger: options.logger ?? silentLogger,
      listens: this.#listens,
      extensions: this.#extensions,
      aroundRequest: options.aroundRequest,
      aroundOutgoingRequest: options.aroundOutgoingRequest,
      codec(revision) {
        const codec = codecs.get(revision);
        if (!codec) throw new Error(`no codec for revision ${revision}`);
        return codec;
      },
      capabilities,
    };
    this.#bus = options.eventBus ?? new InMemoryEventBus();
    this.#bus.subscribe((event) => this.#deliver(event));
    this.#routes = new RouteTable(CORE_ROUTES, capabilities);
    const stateless = new StatelessDispatcher(this.#core, this.#routes);
    this.#seam = serverSeam(this, this.#core, stateless);
    this.#channelTarget = {
      isStatelessRequest,
      serveStatelessRequest: (request, sink) => stateless.serve(request, sink),
    };
    attachSeam(this, this.#seam);
  }

  get serverInfo(): Implementation {
    return this.#core.serverInfo;
  }

  /**
   * `args` is typed by `inputSchema` (a Standard Schema's output type, or what a JSON Schema literal describes)
   * and `structuredContent` by `outputSchema`; see ToolArgs and ToolStructuredContent.
   */
  registerTool<
    const Input extends SchemaInput | undefined = undefined,
    const Output extends SchemaInput | undefined = undefined,
  >(
    name: string,
    config: ToolConfig<Input, Output>,
    handler: ToolHandler<ToolArgs<Input>, ToolStructuredContent<Output>>,
  ): RegisteredHandle<ToolConfig> {
    if (name.length === 0 || name.length > 128) throw new RangeError('tool names are 1 to 128 characters');
    if (!/^[A-Za-z0-9_.-]+$/.test(name))
      this.#core.logger.warn(`tool name ${name} has characters outside [A-Za-z0-9_.-]`);
    const handle = this.#core.tools.add(name, defineTool(config, handler), 'tool');
    return {
      get name() {
        return handle.name;
      },
      get enabled() {
        return handle.enabled;
      },
      update: (changes) => {
        const current = this.#core.tools.find(name)?.config;
        if (!current) throw new Error(`tool ${name} was removed`);
        handle.update(defineTool({ ...current.config, ...changes }, current.handler));
      },
      enable: () => handle.enable(),
      disable: () => handle.disable(),
      remove: () => handle.remove(),
    };
  }

  registerResource(
    name: string,
    uri: string,
    metadata: ResourceMetadata,
    handler: ResourceHandler,
  ): RegisteredHandle<ResourceMetadata> {
    new URL(uri); // a resource URI must be a URI (throws TypeError otherwise)
    const handle = this.#core.resources.add(uri, { name, metadata, handler }, 'resource');
    return adaptHandle(handle, (changes) => ({
      metadata: { ...metadataOf(this.#core.resources.find(uri)), ...changes },
    }));
  }

  registerResourceTemplate(
    name: string,
    uriTemplate: string,
    config: ResourceTemplateConfig,
    handler: ResourceTemplateHandler,
  ): RegisteredHandle<ResourceTemplateConfig> {
    const template = new UriTemplate(uriTemplate);
    const handle = this.#core.templates.add(name, { template, config, handler }, 'resource template');
    return adaptHandle(handle, (changes) => ({
      config: { ...this.#core.templates.find(name)?.config.config, ...changes },
    }));
  }

  /** `args` is typed by `argsSchema` when there is one, else the strings prompts/get carries. */
  registerPrompt<const ArgsSchema extends SchemaInput | undefined = undefined>(
    name: string,
    config: PromptConfig<ArgsSchema>,
    handler: PromptHandler<PromptArgs<ArgsSchema>>,
  ): RegisteredHandle<PromptConfig> {
    // The config as given, not as stored: arguments derived from an argsSchema are derived again on update.
    let given: PromptConfig = config;
    const handle = this.#core.prompts.add(name, definePrompt(name, given, handler), 'prompt');
    return adaptHandle(handle, (changes: Partial<PromptConfig>) => {
      const next = { ...given, ...changes };
      const definition = definePrompt(name, next, handler); // throws on a bad argsSchema: nothing changes
      given = next;
      return definition;
    });
  }

  /** Tells subscribers (legacy resources/subscribe, 2026-07-28 listen streams) that a resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.#bus.publish({ type: 'resourceUpdated', uri });
  }

  /**
   * Adds an extension's methods to the route table (each to the eras it names, default both), its tools/call and
   * listen hooks, and advertises `capabilities.extensions[id]` (2026-07-28 basic/extensions). Sessions already
   * open serve the new methods from their next request. Throws when the id is taken or a method is already
   * served (by MCP itself or another extension); nothing is added then.
   */
  use(extension: ServerExtension): this {
    if (this.#extensions.has(extension.id)) throw new Error(`extension ${extension.id} is already in use`);
    const routes = extensionRoutes(extension);
    // Installed first: a route is served only when the capability it names is advertised.
    this.#extensions.add(extension);
    try {
      this.#routes.add(routes);
    } catch (error) {
      this.#extensions.remove(extension.id);
      throw error;
    }
    for (const session of this.#sessions) session.bindRoutes();
    return this;
  }

  /** Handshake era: binds a session to a transport and starts it. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = new HandshakeSession(this.#core, this.#routes, transport);
    this.#sessions.add(session);
    session.connection.onClose(() => this.#sessions.delete(session));
    await session.connection.start();
    return session;
  }

  /**
   * Serves both eras on one message channel (stdio, in-memory, a socket): each message is routed by its shape,
   * 2026-07-28 requests statelessly and everything else to a handshake session.
   */
  serve(transport: Transport): Promise<ServerSession> {
    return this.connect(new DualEraChannel(transport, this.#channelTarget));
  }

  /** Serves both eras on this process's stdin/stdout. Resolves once the channel is open. */
  serveStdio(options: StdioServerTransportOptions = {}): Promise<ServerSession> {
    return this.serve(new StdioServerTransport({ logger: this.#core.logger, ...options }));
  }

  /** Streamable HTTP (both eras) and the 2024-11-05 HTTP+SSE transport as a web `(Request) => Response`. */
  toFetchHandler(options?: HttpServerOptions): FetchHandler {
    return lazyFetchHandler(this.#seam, options);
  }

  /** The same on node:http, without web Request/Response on the hot path. */
  toNodeHandler(options?: HttpServerOptions): NodeHandler {
    return lazyNodeHandler(this.#seam, options);
  }

  /** Listens on 127.0.0.1 (default) and serves this server at `path` (default /mcp). */
  listen(options?: ListenOptions): Promise<Listening> {
    return listenOn(this.#seam, options);
  }

  /** Ends every subscription gracefully and closes every session. */
  async close(): Promise<void> {
    this.#listens.closeAll();
    await Promise.all([...this.#sessions].map((session) => session.close()));
  }

  #capabilities(): ServerCapabilities {
    // capabilities.extensions[id] of each installed extension, and the core capabilities they rely on.
    return this.#extensions.capabilities({
      ...this.#extraCapabilities,
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    });
  }

  /** Coalesces changes made in one tick (e.g. registering many tools) into one notification per kind. */
  #listChanged(change: ListChange): void {
    const first = this.#pendingChanges.size === 0;
    this.#pendingChanges.add(change);
    if (!first) return;
    queueMicrotask(() => {
      const changes = this.#pendingChanges;
      this.#pendingChanges = new Set();
      for (const change of changes) this.#bus.publish({ type: 'listChanged', change });
    });
  }

  /** An event from the bus, raised here or on another instance: to this instance's sessions and listeners. */
  #deliver(event: ServerEvent): void {
    if (event.type === 'listChanged') {
      for (const session of this.#sessions) session.listChanged(event.change);
      this.#listens.listChanged(event.change);
      return;
    }
    for (const session of this.#sessions) session.resourceUpdated(event.uri);
    this.#listens.resourceUpdated(event.uri);
  }
}

/** The seam the transports use; built once per server, so a request costs what a method call on it costs. */
function serverSeam(server: McpServer, core: ServerCore, stateless: StatelessDispatcher): ServerSeam {
  return {
    isStatelessRequest,
    handleStatelessRequest: (request, context) => stateless.handle(request, context),
    connect: (transport) => server.connect(transport),
    // The registered tool's inputSchema as tools/list sends it (the same object each call), for header checks.
    toolInputSchema: (name) => core.tools.get(name)?.config.input.jsonSchema,
    // The OAuth scopes a tool declares (`requiredScopes`): the HTTP auth guard checks them before a tools/call.
    toolRequiredScopes: (name) => core.tools.get(name)?.config.config.requiredScopes,
  };
}

function toolWire(name: string, tool: ToolDefinition): JSONObject {
  const wire: JSONObject = { name, ...pick(tool.config as Record<string, unknown>, TOOL_FIELDS) };
  wire.inputSchema = tool.input.jsonSchema;
  if (tool.output) wire.outputSchema = tool.output.jsonSchema;
  return wire;
}

function resourceWire(uri: string, resource: ResourceDefinition): JSONObject {
  return { uri, name: resource.name, ...pick(resource.metadata as Record<string, unknown>, RESOURCE_FIELDS) };
}

function templateWire(name: string, template: TemplateDefinition): JSONObject {
  const fields = pick(
    template.config as Record<string, unknown>,
    RESOURCE_FIELDS.filter((f) => f !== 'size'),
  );
  return { uriTemplate: template.template.template, name, ...fields };
}

function promptWire(name: string, prompt: PromptDefinition): JSONObject {
  return { name, ...pick(prompt.config as Record<string, unknown>, PROMPT_FIELDS) };
}

function metadataOf(entry: { config: ResourceDefinition } | undefined): ResourceMetadata {
  return entry?.config.metadata ?? {};
}

function adaptHandle<Definition, Public>(
  handle: RegisteredHandle<Partial<Definition>>,
  toDefinition: (changes: Partial<Public>) => Partial<Definition>,
): RegisteredHandle<Public> {
  return {
    get name() {
      return handle.name;
    },
    get enabled() {
      return handle.enabled;
    },
    update: (changes) => handle.update(toDefinition(changes)),
    enable: () => handle.enable(),
    disable: () => handle.disable(),
    remove: () => handle.remove(),
  };
}
