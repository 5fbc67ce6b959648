/**
 * The gateway's upstream connections. Shared ones are the host's (one per server, supervised: restart,
 * reconnect, list changes), opened by `gatewayConnector`: a plain McpClient that asks for every log level and
 * reports logs and resource updates, so the gateway can relay them. Servers marked per-principal get one more
 * connection per (server, principal), opened with that principal's own credentials from
 * `upstreamCredentials`; a principal's connection is never used for anyone else.
 */
import { McpClient } from '../client/client.js';
import type { ClientMiddleware } from '../client/contracts.js';
import type { ClientHandlers, ClientOptions } from '../client/types.js';
import type { ConnectContext, Connector } from '../agent/client-surface.js';
import type { ServerConfig } from '../agent/config.js';
import type { JSONObject, LoggingMessageParams } from '../mcp/types.js';
import type { InputMethod } from './bridge.js';
import { PACKAGE_VERSION } from '../util/version.js';
import type { Logger } from '../util/logger.js';

const CLIENT_INFO = { name: 'agentforge-gateway', version: PACKAGE_VERSION };

/** What a principal's own connection to a server is opened with: HTTP headers, or a stdio server's environment. */
export interface UpstreamCredentials {
  readonly headers?: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string>>;
  /** Epoch ms when they stop being good (an exchanged token): the connection is replaced after it. */
  readonly expiresAt?: number;
}

/** What the gateway knows of the caller opening a connection. */
export interface UpstreamCaller {
  /**
   * The caller's verified access token, when the downstream guard kept it (`bearerAuth({ exposeToken: true })`):
   * for a token exchange (RFC 8693 `subject_token`) only. Never send it upstream (Token Passthrough).
   */
  readonly subjectToken?: string;
}

export type UpstreamCredentialsHook = (
  principal: string,
  server: string,
  caller?: UpstreamCaller,
) => UpstreamCredentials | undefined | Promise<UpstreamCredentials | undefined>;

/** Input an upstream asks for (elicitation, sampling, roots), with its MRTR key when it has one. */
export type UpstreamAsk = (
  connection: string,
  method: InputMethod,
  params: JSONObject,
  signal: AbortSignal,
  key: string | undefined,
) => Promise<Record<string, unknown>>;

/** The client handlers of one upstream connection: every input request goes to the exchange it belongs to. */
export function upstreamHandlers(connection: string, ask: UpstreamAsk): ClientHandlers {
  return {
    elicitation: (params, input) =>
      ask(connection, 'elicitation/create', params, input.signal, input.key) as Promise<never>,
    sampling: (params, input) =>
      ask(connection, 'sampling/createMessage', params, input.signal, input.key) as Promise<never>,
    roots: async (input) => {
      const answer = await ask(connection, 'roots/list', {}, input.signal, input.key);
      return Array.isArray(answer.roots) ? (answer.roots as never) : [];
    },
  };
}

/** What the gateway hears from an upstream connection, tagged with the connection. */
export interface UpstreamEvents {
  log(connection: string, params: LoggingMessageParams): void;
  resourceUpdated(server: string, uri: string): void;
}

/** Request middleware of each upstream connection, by server (tracing: a CLIENT span per request). */
export type UpstreamMiddleware = (server: string) => readonly ClientMiddleware[];

/** Client options for one upstream: every log level (the gateway filters per downstream), no tasks layer. */
function clientOptions(
  config: ServerConfig,
  handlers: ClientHandlers,
  signal: AbortSignal | undefined,
  headers: Readonly<Record<string, string>>,
  middleware: UpstreamMiddleware | undefined,
): ClientOptions {
  const { target } = config;
  return {
    ...(middleware ? { middleware: middleware(config.name) } : {}),
    clientInfo: CLIENT_INFO,
    handlers,
    logLevel: 'debug',
    // One connection serves many principals: no result is kept for the next caller (their cacheScope is the
    // upstream's to set, and a private result must never reach another principal).
    cache: false,
    ...(signal ? { signal } : {}),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.protocolVersion === undefined ? {} : { protocolVersion: config.protocolVersion }),
    ...(target.kind === 'http' ? { headers: { ...target.headers, ...headers }, transport: target.mode } : {}),
  };
}

async function open(config: ServerConfig, options: ClientOptions, env?: Readonly<Record<string, string>>) {
  const { target } = config;
  if (target.kind === 'http') return McpClient.connect(target.url, options);
  return McpClient.connect(
    {
      command: target.command,
      args: [...target.args],
      ...(target.env || env ? { env: { ...target.env, ...env } } : {}),
      ...(target.cwd ? { cwd: target.cwd } : {}),
    },
    options,
  );
}

/**
 * The host's connector for the gateway's shared connections. Input requests bypass the host's handlers: they
 * go to the downstream request they belong to, with their MRTR key.
 */
export function gatewayConnector(
  events: UpstreamEvents,
  ask: UpstreamAsk,
  middleware?: UpstreamMiddleware,
): Connector {
  return async (config: ServerConfig, context: ConnectContext) => {
    const handlers = upstreamHandlers(config.name, ask);
    const options = clientOptions(config, handlers, context.signal, {}, middleware);
    if (context.onStderr) options.onstderr = context.onStderr;
    const client = await open(config, options);
    if (context.signal.aborted) {
      await client.close();
      throw context.signal.reason;
    }
    const server = config.name;
    client.on('toolsListChanged', () => context.onEvent('toolsListChanged'));
    client.on('resourcesListChanged', () => context.onEvent('resourcesListChanged'));
    client.on('promptsListChanged', () => context.onEvent('promptsListChanged'));
    client.on('close', () => context.onEvent('close'));
    client.on('log', (params) => events.log(server, params));
    client.on('resourceUpdated', ({ uri }) => events.resourceUpdated(server, uri));
    await client.listChangesReady();
    return client;
  };
}

interface Pooled {
  readonly client: Promise<McpClient>;
  lastUsed: number;
  /** From the credentials it was opened with. */
  expiresAt?: number;
}

/** How long a connection replaced for expired credentials is kept for the calls still on it. */
const RETIRE_GRACE_MS = 60_000;

export interface PrincipalPoolOptions {
  readonly credentials: UpstreamCredentialsHook;
  /** Answers the input requests of every connection. */
  readonly ask: UpstreamAsk;
  readonly events: UpstreamEvents;
  readonly logger: Logger;
  /** Connections idle this long are closed (default 10 minutes). */
  readonly idleMs?: number;
  /** Connections kept at most; past it the least recently used is closed (default 500). */
  readonly maxConnections?: number;
  readonly middleware?: UpstreamMiddleware;
}

/** Connections per (server, principal), opened on first use with the principal's credentials. */
export class PrincipalPool {
  readonly #options: PrincipalPoolOptions;
  readonly #pool = new Map<string, Pooled>();
  /** Connections replaced for stale credentials, with the timer that closes them. */
  readonly #retired = new Map<Pooled, NodeJS.Timeout>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: PrincipalPoolOptions) {
    this.#options = options;
    const idleMs = options.idleMs ?? 10 * 60_000;
    this.#sweeper = setInterval(() => this.#sweep(idleMs), Math.min(idleMs, 60_000));
    this.#sweeper.unref();
  }

  static key(server: string, principal: string): string {
    return `${server}\u0000${principal}`;
  }

  get size(): number {
    return this.#pool.size;
  }

  /** The principal's own connection to `config`'s server; refused when the hook has no credentials for it. */
  client(config: ServerConfig, principal: string, caller?: UpstreamCaller): Promise<McpClient> {
    const key = PrincipalPool.key(config.name, principal);
    const pooled = this.#pool.get(key);
    if (pooled && pooled.expiresAt !== undefined && Date.now() >= pooled.expiresAt) {
      // Its credentials are stale: new calls get a new connection; the old one closes once its calls are done.
      this.#pool.delete(key);
      this.#retire(pooled);
    } else if (pooled) {
      pooled.lastUsed = Date.now();
      return pooled.client;
    }
    if (this.#pool.size >= (this.#options.maxConnections ?? 500)) this.#evict();
    const client: Promise<McpClient> = this.#open(config, principal, key, caller, (expiresAt) => {
      const opened = this.#pool.get(key);
      if (opened?.client === client) opened.expiresAt = expiresAt;
    });
    this.#pool.set(key, { client, lastUsed: Date.now() });
    // A failed open is not kept: the next call tries again (fresh credentials, a server back up).
    client.catch(() => {
      if (this.#pool.get(key)?.client === client) this.#pool.delete(key);
    });
    return client;
  }

  /** Drops a connection that failed (its next call opens a new one). */
  discard(server: string, principal: string): void {
    const key = PrincipalPool.key(server, principal);
    const pooled = this.#pool.get(key);
    if (!pooled) return;
    this.#pool.delete(key);
    void pooled.client.then((client) => client.close()).catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const all = [...this.#pool.values(), ...this.#retired.keys()];
    for (const timer of this.#retired.values()) clearTimeout(timer);
    this.#retired.clear();
    this.#pool.clear();
    await Promise.all(all.map((pooled) => pooled.client.then((c) => c.close()).catch(() => undefined)));
  }

  async #open(
    config: ServerConfig,
    principal: string,
    key: string,
    caller: UpstreamCaller | undefined,
    expires: (at: number) => void,
  ): Promise<McpClient> {
    const credentials = await this.#options.credentials(principal, config.name, caller);
    if (!credentials) throw new Error(`no upstream credentials for this principal on server ${config.name}`);
    if (credentials.expiresAt !== undefined) expires(credentials.expiresAt);
    const options = clientOptions(
      config,
      upstreamHandlers(key, this.#options.ask),
      undefined,
      credentials.headers ?? {},
      this.#options.middleware,
    );
    const client = await open(config, options, credentials.env);
    const { events } = this.#options;
    client.on('log', (params) => events.log(key, params));
    client.on('resourceUpdated', ({ uri }) => events.resourceUpdated(config.name, uri));
    client.on('close', () => {
      if (this.#pool.get(key)?.client !== undefined) this.#pool.delete(key);
    });
    this.#options.logger.debug(`opened a per-principal connection to ${config.name}`);
    return client;
  }

  #retire(pooled: Pooled): void {
    const timer = setTimeout(() => {
      this.#retired.delete(pooled);
      void pooled.client.then((client) => client.close()).catch(() => undefined);
    }, RETIRE_GRACE_MS);
    timer.unref();
    this.#retired.set(pooled, timer);
  }

  #sweep(idleMs: number): void {
    const now = Date.now();
    for (const [key, pooled] of this.#pool) {
      if (now - pooled.lastUsed < idleMs) continue;
      this.#pool.delete(key);
      void pooled.client.then((client) => client.close()).catch(() => undefined);
    }
  }

  #evict(): void {
    let oldest: [string, Pooled] | undefined;
    for (const entry of this.#pool) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
    if (!oldest) return;
    this.#pool.delete(oldest[0]);
    void oldest[1].client.then((client) => client.close()).catch(() => undefined);
  }
}
