/**
 * The gateway: the servers of an mcp.json, connected and supervised by the host, served as one MCP server (every
 * revision, every transport) at `/mcp`, and one more per group at `/mcp/<group>` (a virtual server). Each
 * endpoint is an McpServer whose registrations mirror the upstreams; upstream list changes are applied to the
 * registry and the registrations, and the server announces them downstream.
 */
import type { HostConfig } from '../agent/config.js';
import { McpHost, type HostEvent } from '../agent/host.js';
import { SEARCH_TOOL_NAME } from '../agent/tool-search.js';
import type { ToolDefinition } from '../agent/model.js';
import { principalOf } from '../server/request-state.js';
import { McpServer } from '../server/server.js';
import type { AuthInfo, HandlerContext } from '../server/types.js';
import type { ServerSession } from '../server/session.js';
import { isRecord } from '../util/record.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { Bridge } from './bridge.js';
import { answerWithoutCaller } from './caller-input.js';
import { Catalog, Mirror } from './catalog.js';
import { Forwarder } from './forward.js';
import { offerToolSearch } from './search.js';
import { InMemoryResponseCache, ReadCache } from './response-cache.js';
import { InMemoryTaskRouteStore } from './shared-state.js';
import { TaskRelay } from './tasks.js';
import { RateLimiter, type RateLimits, ToolPolicy } from './governance.js';
import { exchangeCredentials, perPrincipalServers } from './token-exchange.js';
import { PrincipalPool, type UpstreamAsk, gatewayConnector } from './upstreams.js';
import type { Collision, GatewayOptions } from './options.js';

export type { Collision, GatewayOptions };

interface Endpoint {
  readonly group: string | undefined;
  readonly server: McpServer;
  readonly mirror: Mirror;
}

export class Gateway {
  readonly host: McpHost;
  readonly #endpoints = new Map<string, Endpoint>();
  readonly #catalog: Catalog;
  readonly #bridge: Bridge;
  readonly #pool: PrincipalPool;
  readonly #governance: { policy: ToolPolicy; limiter: RateLimiter };
  readonly #initialPolicy: ToolPolicy;
  #options: GatewayOptions;
  readonly #logger: Logger;
  readonly #collisions: Collision[] = [];
  readonly #tasks: TaskRelay;
  readonly #reads: ReadCache;
  /** One set every part reads: a reload that gives a server `tokenExchange` makes it per-principal at once. */
  readonly #perPrincipal = new Set<string>();
  #syncing: Promise<void> = Promise.resolve();
  #pendingSync = false;
  #closed = false;

  /** @internal Built by `createGateway`. */
  constructor(host: McpHost, bridge: Bridge, pool: PrincipalPool, options: GatewayOptions) {
    this.host = host;
    this.#bridge = bridge;
    this.#pool = pool;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#initialPolicy = new ToolPolicy(options.policies);
    this.#governance = { policy: this.#initialPolicy, limiter: this.#limiter(options.rateLimits) };
    let forwarder: Forwarder | undefined;
    const perPrincipal = this.#perPrincipal;
    for (const server of perPrincipalServers(options.config.servers, options.perPrincipal))
      perPrincipal.add(server);
    this.#reads = new ReadCache(
      options.shared?.responseCache ?? new InMemoryResponseCache(),
      perPrincipal,
      this.#logger,
    );
    this.#tasks = new TaskRelay(
      host,
      options.shared?.taskRoutes ?? new InMemoryTaskRouteStore(),
      async (server, principal, auth) => forwarder?.connectionFor(server, principal, auth),
    );
    forwarder = new Forwarder({
      host,
      bridge,
      governance: this.#governance,
      pool,
      perPrincipal,
      audit: options.audit,
      logger: this.#logger,
      tasks: this.#tasks,
      reads: this.#reads,
    });
    this.#catalog = new Catalog(host, forwarder, {
      prefix: options.prefix !== false,
      logger: this.#logger,
      onCollision: (kind, wanted, given, server) => this.#collided({ kind, wanted, given, server }),
      perPrincipal,
    });
    this.#addEndpoint(undefined);
    for (const group of groupsOf(options.config)) this.#addEndpoint(group);
  }

  /** The endpoint serving every server, or one group's. */
  server(group?: string): McpServer | undefined {
    return this.#endpoints.get(group ?? '')?.server;
  }

  get groups(): string[] {
    return [...this.#endpoints.values()].flatMap((endpoint) => endpoint.group ?? []);
  }

  /** Names two upstreams both wanted, and what each got instead. */
  get collisions(): readonly Collision[] {
    return this.#collisions;
  }

  /** True when every required upstream is connected. */
  get ready(): boolean {
    const required = new Set(
      this.#options.required ?? this.#options.config.servers.filter((s) => s.enabled).map((s) => s.name),
    );
    return this.host.servers().every((status) => !required.has(status.name) || status.state === 'ready');
  }

  /** Upstream requests still open (in flight, or waiting for a caller's next MRTR round). */
  get openRequests(): number {
    return this.#bridge.size;
  }

  /** Waits until every list change heard so far is served. */
  async settled(): Promise<void> {
    await this.#syncing;
  }

  /**
   * Applies a new config and its governance without dropping anyone: sessions and listen streams stay open,
   * servers the config keeps unchanged stay connected with their calls in flight, new groups get their endpoint,
   * and callers hear of the changed lists. `settings` replace the policies, rate limits and required servers.
   */
  async reload(
    config: HostConfig,
    settings: Pick<GatewayOptions, 'policies' | 'rateLimits' | 'required'> = {},
  ): Promise<void> {
    checkPrefix(config, this.#options.prefix);
    const before = this.#options.config.servers.map((s) => s.name);
    this.#options = { ...this.#options, config, ...settings };
    const policy = new ToolPolicy(settings.policies);
    if (!policy.empty && !this.#listsFiltered)
      this.#logger.warn(
        'gateway: policies added by a reload apply to calls; lists are filtered after a restart',
      );
    this.#governance.policy = policy;
    this.#governance.limiter = this.#limiter(settings.rateLimits);
    this.#perPrincipal.clear();
    for (const server of perPrincipalServers(config.servers, this.#options.perPrincipal))
      this.#perPrincipal.add(server);
    await this.host.reconfigure(config);
    for (const group of groupsOf(config)) if (!this.#endpoints.has(group)) this.#addEndpoint(group);
    const names = new Set([...before, ...config.servers.map((s) => s.name)]);
    await Promise.all([...names].map((name) => this.#catalog.refreshServer(name)));
    this.#scheduleSync();
    await this.#syncing;
  }

  /** Relays an upstream's resources/updated to every endpoint's subscribers, under the URI it serves there. */
  resourceUpdated(server: string, uri: string): void {
    this.#reads.invalidate(server, uri);
    const served = this.#catalog.uriFor(server, uri);
    for (const endpoint of this.#endpoints.values()) endpoint.server.notifyResourceUpdated(served);
  }

  /** Serves the every-server endpoint on this process's stdin/stdout (both eras). */
  serveStdio(): Promise<ServerSession> {
    return this.server()!.serveStdio();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#bridge.close();
    await Promise.all([...this.#endpoints.values()].map((endpoint) => endpoint.server.close()));
    await this.#catalog.close();
    await this.#pool.close();
    await this.host.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** @internal The first sync, once the host is up. */
  async start(): Promise<void> {
    this.host.on((event) => this.#onHostEvent(event));
    await Promise.all(this.host.servers().map((s) => this.#catalog.refreshServer(s.name)));
    this.#scheduleSync();
    await this.#syncing;
  }

  #onHostEvent(event: HostEvent): void {
    if (this.#closed) return;
    if (event.type === 'server_state') {
      this.#scheduleSync(event.server);
    } else if (event.type === 'list_changed') {
      // Every list is read again: a changed tools list may come with new caching hints too.
      this.#scheduleSync(event.server);
    }
  }

  /** Coalesces changes: one registry refresh and one mirror pass for everything heard meanwhile. */
  #scheduleSync(server?: string): void {
    const refetch = server === undefined ? Promise.resolve() : this.#catalog.refreshServer(server);
    if (this.#pendingSync) {
      this.#syncing = this.#syncing.then(() => refetch).then(() => this.#sync());
      return;
    }
    this.#pendingSync = true;
    this.#syncing = this.#syncing
      .then(() => refetch)
      .then(() => {
        this.#pendingSync = false;
        return this.#sync();
      })
      .catch((error: unknown) => this.#logger.warn('gateway: applying upstream changes failed', error));
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    await this.host.refresh();
    for (const collision of this.#catalog.toolCollisions()) {
      const seen = this.#collisions.some((c) => c.kind === 'tool' && c.given === collision.given);
      if (!seen) this.#collided({ kind: 'tool', ...collision });
    }
    const groups = new Map(this.#options.config.servers.map((s) => [s.name, s.groups]));
    for (const endpoint of this.#endpoints.values()) {
      endpoint.mirror.apply(this.#catalog.desired(endpoint.group, (name) => groups.get(name) ?? []));
    }
  }

  /** Buckets in this process, or shared with the other instances. */
  #limiter(limits: RateLimits | undefined): RateLimiter {
    return new RateLimiter(limits, undefined, this.#options.shared?.rateLimits);
  }

  /** Lists are filtered per caller when there were policies at the start, or there may be later. */
  get #listsFiltered(): boolean {
    return !this.#initialPolicy.empty || this.#options.dynamicPolicies === true;
  }

  #collided(collision: Collision): void {
    this.#collisions.push(collision);
    this.#logger.warn(
      `server "${collision.server}": ${collision.kind} "${collision.wanted}" is taken; served as "${collision.given}"`,
    );
  }

  #addEndpoint(group: string | undefined): void {
    const info = this.#options.info ?? { name: 'agentforge-gateway', version: PACKAGE_VERSION };
    const governance = this.#governance;
    const filtered = this.#listsFiltered;
    const server = new McpServer(
      { ...info, ...(group === undefined ? {} : { title: `${info.name} (${group})` }) },
      {
        ...(this.#options.requestState ? { requestState: this.#options.requestState } : {}),
        // Public by default, so that what the upstreams' hints allow reaches the caller: every registration
        // from an upstream carries its hints (stale at once and private when the upstream gave none), and a
        // list filtered per caller is private whatever they say.
        cache: { ttlMs: 0, cacheScope: 'public' },
        ...(this.#options.logger ? { logger: this.#options.logger } : {}),
        ...(this.#options.aroundRequest ? { aroundRequest: this.#options.aroundRequest } : {}),
        ...(!filtered
          ? {}
          : {
              listFilter: (kind, name, authInfo) =>
                kind !== 'tools' ||
                name === SEARCH_TOOL_NAME ||
                governance.policy.allows({ principal: principalOf(authInfo), auth: authOf(authInfo) }, name),
            }),
      },
    );
    if (this.#options.toolSearch) this.#offerSearch(server, group);
    // SEP-2663 tasks, when an upstream offers them (their settings are the first such upstream's).
    const taskSettings = this.#tasks.settings();
    if (taskSettings) server.use(this.#tasks.extension(taskSettings));
    this.#endpoints.set(group ?? '', { group, server, mirror: new Mirror(server, this.#logger) });
  }

  /** `search_tools` over this endpoint's tools, as the caller may see them. */
  #offerSearch(server: McpServer, group: string | undefined): void {
    const cache = new Map<string, readonly ToolDefinition[]>();
    const definitions = (context: HandlerContext): readonly ToolDefinition[] => {
      const key = `${this.host.registry.version}\u0000${context.principal ?? ''}`;
      let list = cache.get(key);
      if (!list) {
        const caller = { principal: context.principal, auth: context.auth };
        list = this.host.registry
          .entries()
          .filter((entry) => entry.kind === 'tool' && (group === undefined || entry.groups.includes(group)))
          .map((entry) => ({
            name: this.#catalog.toolName(entry),
            description: entry.description,
            inputSchema: entry.inputSchema,
          }))
          .filter((definition) => this.#governance.policy.allows(caller, definition.name));
        if (cache.size >= 100) cache.clear();
        cache.set(key, list);
      }
      return list;
    };
    offerToolSearch(server, definitions);
  }
}

/** Builds the gateway: connects every upstream (slow ones join later) and serves what is ready. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  checkPrefix(config, options.prefix);
  let gateway: Gateway | undefined;
  // Servers with `tokenExchange` in mcp.json (now or after a reload) are per-principal, their credentials
  // exchanged tokens; the others listed in `perPrincipal` get the hook's.
  if ((options.perPrincipal?.length ?? 0) > 0 && !options.upstreamCredentials)
    throw new Error('perPrincipal servers need an upstreamCredentials hook');
  const credentials = exchangeCredentials(
    () => gateway?.host.config.servers ?? config.servers,
    options.upstreamCredentials,
  );
  const bridge = new Bridge({
    ...(options.inputTimeoutMs === undefined ? {} : { parkMs: options.inputTimeoutMs }),
    ...(options.shared?.bus ? { bus: options.shared.bus } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const ask: UpstreamAsk = (connection, method, params, signal, key) => {
    const exchange = bridge.exchangeFor(connection);
    // No caller to ask: a request of no forwarded call.
    return exchange ? exchange.ask(method, params, signal, key) : answerWithoutCaller(method);
  };
  const events = {
    log: (connection: string, params: { level: string; data?: unknown; logger?: string }) =>
      bridge.exchangeFor(connection)?.log(params.level as never, params.data, params.logger),
    resourceUpdated: (server: string, uri: string) => gateway?.resourceUpdated(server, uri),
  };
  const pool = new PrincipalPool({
    credentials,
    ask,
    events,
    logger: options.logger ?? silentLogger,
    ...(options.upstreamMiddleware ? { middleware: options.upstreamMiddleware } : {}),
  });
  const host = await McpHost.start(config, {
    ...options.upstream,
    connector: gatewayConnector(events, ask, options.upstreamMiddleware),
    ...(options.prefix === false ? { namer: (_server: string, tool: string) => tool } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  gateway = new Gateway(host, bridge, pool, options);
  await gateway.start();
  return gateway;
}

function checkPrefix(config: HostConfig, prefix: boolean | undefined): void {
  const enabled = config.servers.filter((s) => s.enabled);
  if (prefix === false && enabled.length > 1)
    throw new Error(`prefix: false serves a single upstream; ${config.source} enables ${enabled.length}`);
}

function groupsOf(config: HostConfig): string[] {
  return [...new Set(config.servers.flatMap((s) => s.groups))].sort();
}

function authOf(authInfo: unknown): AuthInfo | undefined {
  return isRecord(authInfo) && Array.isArray(authInfo.scopes) ? (authInfo as unknown as AuthInfo) : undefined;
}
