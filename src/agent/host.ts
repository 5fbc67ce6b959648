/**
 * The host: one client per configured server, all connecting at once, and the tool registry over them. Notifications only mark lists stale; `refresh()` applies them, and the agent
 * loop calls it between turns, so the tools the model was shown never change under a running turn.
 */
import type { ServerLogs } from './server-logs.js';
import { LocalError } from '../jsonrpc/errors.js';
import type {
  CallToolResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
} from '../mcp/types.js';
import { delay } from '../util/abort.js';
import { type Logger, silentLogger } from '../util/logger.js';
import type {
  CallSink,
  ClientEvent,
  Connector,
  HostClient,
  ServerRequestHandlers,
  TaskUpdate,
  ToolCallOptions,
} from './client-surface.js';
import type { HostConfig, ServerConfig } from './config.js';
import { mcpClientConnector } from './connect.js';
import type { ToolNamer } from './naming.js';
import { type RegisteredTool, type RegistryChange, ToolRegistry, stableStringify } from './registry.js';
import {
  type RetryPolicy,
  ServerSlot,
  type ServerState,
  type ServerStatus,
  type SlotChange,
  reconnections,
} from './server-slot.js';
import { callOnSlot } from './server-call.js';

export type HostEvent =
  | {
      readonly type: 'server_state';
      readonly server: string;
      readonly state: ServerState;
      readonly error?: string;
      /** The tools it offers, when it became ready. */
      readonly tools?: number;
    }
  | { readonly type: 'list_changed'; readonly server: string; readonly list: ClientEvent }
  | { readonly type: 'registry_changed'; readonly change: RegistryChange }
  /** A tool call running as a task (SEP-2663): shown as running until a terminal status. */
  | ({ readonly type: 'task'; readonly server: string } & TaskUpdate)
  /** A server's notifications/message (client/utilities/logging), as it sent it: check what you show. */
  | { readonly type: 'log'; readonly server: string; readonly message: LoggingMessageParams };

/** Server-initiated requests, with the server that sent them. */
export interface HostRequestHandlers {
  elicitation?(server: string, params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult>;
  sampling?(
    server: string,
    params: CreateMessageRequestParams,
    signal: AbortSignal,
  ): Promise<CreateMessageResult>;
}

export interface HostOptions {
  /** Opens a client for a server config. Default: `mcpClientConnector` (one McpClient per server). */
  readonly connector?: Connector;
  /**
   * Declare the sampling capability to servers (the agent answers with its model, after approval; see
   * `AgentOptions.sampling`). Elicitation is always declared: without a handler the host declines.
   */
  readonly offerSampling?: boolean;
  readonly namer?: ToolNamer;
  /** Per connection attempt (spawn or connect, plus the first lists). Default 30 s. */
  readonly connectTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /**
   * How long a refresh between turns waits for a server's lists after its list_changed; a slower server
   * keeps its previous tools for that turn instead of holding up the run. Default 5 s.
   */
  readonly refreshTimeoutMs?: number;
  /** Reconnect after a server's connection drops. Default true. */
  readonly reconnect?: boolean;
  /**
   * How long `start()` waits for servers before going on without the slow ones (they join the registry at
   * a later refresh once ready). Default: `connectTimeoutMs`.
   */
  readonly startupTimeoutMs?: number;
  readonly handlers?: HostRequestHandlers;
  readonly logger?: Logger;
  readonly onEvent?: (event: HostEvent) => void;
  /**
   * The least severe server log to ask for (logging/setLevel on handshake sessions, `_meta` logLevel on
   * 2026-07-28 requests); the messages arrive as `log` events. Default: none asked for.
   */
  readonly logLevel?: LoggingLevel;
  /** Keep each stdio server's stderr in a log file of its own (see server-logs.ts); closed with the host. */
  readonly serverLogs?: ServerLogs;
  /** Aborting it while `start()` waits for servers shuts every server down and rejects with its reason. */
  readonly signal?: AbortSignal;
}

/**
 * How `McpHost.callTool` runs one call: cancellation, progress, task statuses, and the capabilities and input
 * handlers it uses instead of the host's (a gateway's caller); the server's configured timeout applies.
 */
export type CallToolOptions = Omit<ToolCallOptions, 'timeoutMs'>;

export class McpHost {
  readonly registry: ToolRegistry;
  readonly #slots = new Map<string, ServerSlot>();
  #registryStale = true;
  #refreshing: Promise<RegistryChange> | undefined;
  #handlers: HostRequestHandlers;
  readonly #listeners = new Set<(event: HostEvent) => void>();

  #currentConfig: HostConfig;
  readonly #slotOptions: Omit<ConstructorParameters<typeof ServerSlot>[1], 'handlers'>;
  readonly #options: HostOptions;

  private constructor(config: HostConfig, options: HostOptions) {
    this.#currentConfig = config;
    this.#options = options;
    this.registry = new ToolRegistry(options.namer);
    this.#handlers = options.handlers ?? {};
    if (options.onEvent) this.#listeners.add(options.onEvent);
    this.#slotOptions = {
      connector: options.connector ?? mcpClientConnector,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      refreshTimeoutMs: options.refreshTimeoutMs ?? 5_000,
      retry: { maxAttempts: options.retry?.maxAttempts ?? 3, backoffMs: options.retry?.backoffMs ?? 500 },
      reconnect: options.reconnect ?? true,
      logger: options.logger ?? silentLogger,
      ...(options.serverLogs ? { serverLogs: options.serverLogs } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      onLog: (slot: ServerSlot, message: LoggingMessageParams) =>
        this.#emit({ type: 'log', server: slot.config.name, message }),
      onChange: (slot: ServerSlot, what: SlotChange) => this.#onSlotChange(slot, what),
    };
    for (const server of config.servers) this.#slots.set(server.name, this.#slotFor(server));
  }

  /** The config in force (the last one `reconfigure` applied). */
  get config(): HostConfig {
    return this.#currentConfig;
  }

  /**
   * Applies a new config without touching the servers it keeps as they were: removed and changed servers are
   * closed, new and changed ones connect (waited for as `start` waits), and the registry is refreshed.
   */
  async reconfigure(config: HostConfig): Promise<RegistryChange> {
    const wanted = new Map(config.servers.map((server) => [server.name, server]));
    const leaving = [...this.#slots].filter(([name, slot]) => {
      const next = wanted.get(name);
      return !next || stableStringify(next) !== stableStringify(slot.config);
    });
    for (const [name] of leaving) this.#slots.delete(name);
    await Promise.all(leaving.map(([, slot]) => slot.close()));
    const joining = config.servers
      .filter((server) => !this.#slots.has(server.name))
      .map((s) => this.#slotFor(s));
    for (const slot of joining) this.#slots.set(slot.config.name, slot);
    this.#currentConfig = config;
    this.#registryStale = true;
    const waitMs = this.#options.startupTimeoutMs ?? this.#options.connectTimeoutMs ?? 30_000;
    const timeout = new AbortController();
    await Promise.race([
      Promise.all(joining.map((slot) => slot.start())),
      delay(waitMs, timeout.signal).catch(() => undefined),
    ]);
    timeout.abort();
    return this.refresh();
  }

  #slotFor(server: ServerConfig): ServerSlot {
    return new ServerSlot(server, { ...this.#slotOptions, handlers: this.#slotHandlers(server.name) });
  }

  /** Connects every enabled server concurrently and builds the registry from those ready in time. */
  static async start(config: HostConfig, options: HostOptions = {}): Promise<McpHost> {
    const host = new McpHost(config, options);
    const all = Promise.all([...host.#slots.values()].map((slot) => slot.start()));
    const waitMs = options.startupTimeoutMs ?? options.connectTimeoutMs ?? 30_000;
    const timeout = new AbortController();
    const signal = options.signal;
    const stopWaiting = () => timeout.abort();
    signal?.addEventListener('abort', stopWaiting, { once: true });
    await Promise.race([all, delay(waitMs, timeout.signal).catch(() => undefined)]);
    timeout.abort();
    signal?.removeEventListener('abort', stopWaiting);
    if (signal?.aborted) {
      await host.close();
      throw signal.reason;
    }
    await host.refresh(signal);
    if (signal?.aborted) {
      await host.close();
      throw signal.reason;
    }
    return host;
  }

  /** Subscribes to host events; returns the unsubscribe function. */
  on(listener: (event: HostEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Routes elicitation and sampling requests from servers (the agent sets sampling to its model). */
  setHandlers(handlers: HostRequestHandlers): void {
    this.#handlers = { ...this.#handlers, ...handlers };
  }

  servers(): ServerStatus[] {
    return [...this.#slots.values()].map((slot) => slot.status());
  }

  client(server: string): HostClient | undefined {
    return this.#slots.get(server)?.client;
  }

  /** Waits until every server has finished its current connection attempts (ready or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((slot) => slot.connecting));
  }

  /** True when a notification or a server coming or going awaits `refresh()`, or one is running. */
  get refreshPending(): boolean {
    // A refresh under way counts: a run starting now waits for it rather than see the registry before it.
    if (this.#registryStale || this.#refreshing) return true;
    for (const { stale } of this.#slots.values())
      if (stale.tools || stale.resources || stale.prompts) return true;
    return false;
  }

  /**
   * Waits (until `signal` aborts) for servers restarting after a lost connection: the agent, between turns.
   * Undefined when none is restarting.
   */
  reconnected(signal?: AbortSignal): Promise<void> | undefined {
    return reconnections(this.#slots.values(), signal);
  }

  /** Applies pending list changes to the registry. Call between turns. */
  refresh(signal?: AbortSignal): Promise<RegistryChange> {
    this.#refreshing ??= this.#doRefresh(signal).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #doRefresh(signal?: AbortSignal): Promise<RegistryChange> {
    // Cleared before the awaits: a server coming or going meanwhile marks the registry stale again.
    const stale = this.#registryStale;
    this.#registryStale = false;
    const refreshed = await Promise.all([...this.#slots.values()].map((slot) => slot.refreshLists(signal)));
    if (!stale && !refreshed.some(Boolean)) return { added: [], removed: [], changed: [] };
    const ready = [...this.#slots.values()].filter((slot) => slot.state === 'ready');
    const change = this.registry.update(
      ready.map((slot) => slot.snapshot()),
      (server, tool, reason) =>
        this.#options.logger?.warn(
          tool === undefined
            ? `server "${server}": its tools are left out: ${reason}`
            : `server "${server}": tool "${tool}" is left out: ${reason}`,
        ),
    );
    if (change.added.length + change.removed.length + change.changed.length > 0) {
      this.#emit({ type: 'registry_changed', change });
    }
    return change;
  }

  /** Calls a registered tool (or exposed resource reader / prompt getter) on its server. */
  callTool(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    return new Promise((answered, failed) => this.callToolInto(tool, args, options, { answered, failed }));
  }

  /**
   * `callTool`, its answer or failure handed to `sink` in the call's own reaction (the agent's calls take this
   * path); a link failure is confirmed or ruled out before `sink` hears of it (callOnSlot).
   */
  callToolInto(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    options: CallToolOptions,
    sink: CallSink,
  ): void {
    callOnSlot(this.#slots.get(tool.server), tool, args, options, sink);
  }

  /** Resources of every ready server (or one), with the server that has them. */
  async listResources(server?: string): Promise<Array<{ server: string; resource: Resource }>> {
    return this.#fromServers(server, 'resources', async (slot, client) =>
      (slot.resources ?? (await client.listResources())).map((resource) => ({
        server: slot.config.name,
        resource,
      })),
    );
  }

  async readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.#requireClient(server).readResource({ uri }, signal ? { signal } : {});
  }

  async listPrompts(server?: string): Promise<Array<{ server: string; prompt: Prompt }>> {
    return this.#fromServers(server, 'prompts', async (slot, client) =>
      (slot.prompts ?? (await client.listPrompts())).map((prompt) => ({ server: slot.config.name, prompt })),
    );
  }

  async getPrompt(server: string, name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
    return this.#requireClient(server).getPrompt({ name, arguments: args });
  }

  /** Closes every client (stdio servers get the spec's stdin-close, SIGTERM, SIGKILL sequence). */
  async close(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((slot) => slot.close()));
    await this.#options.serverLogs?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #fromServers<T>(
    server: string | undefined,
    capability: 'resources' | 'prompts',
    list: (slot: ServerSlot, client: HostClient) => Promise<T[]>,
  ): Promise<T[]> {
    const slots =
      server === undefined
        ? [...this.#slots.values()]
        : [this.#slots.get(server)].filter((s) => s !== undefined);
    if (server !== undefined && slots.length === 0) throw new Error(`no server named ${server}`);
    const lists = await Promise.all(
      slots.map((slot) => {
        const client = slot.client;
        if (!client || slot.state !== 'ready' || client.serverCapabilities?.[capability] === undefined)
          return Promise.resolve([] as T[]);
        return list(slot, client).catch(() => [] as T[]);
      }),
    );
    return lists.flat();
  }

  #requireClient(server: string): HostClient {
    const slot = this.#slots.get(server);
    if (!slot) throw new Error(`no server named ${server}`);
    if (!slot.client)
      throw new LocalError('not_connected', `server ${server} is not connected (${slot.state})`);
    return slot.client;
  }

  #slotHandlers(server: string): ServerRequestHandlers {
    const elicitation: ServerRequestHandlers['elicitation'] = (params, signal) => {
      const handler = this.#handlers.elicitation;
      // client/elicitation: declining is a valid answer when no one can fill the form.
      if (!handler) return Promise.resolve({ action: 'decline' });
      return handler(server, params, signal);
    };
    const task: ServerRequestHandlers['task'] = (update) => this.#emit({ type: 'task', server, ...update });
    if (!this.#options.offerSampling && !this.#handlers.sampling) return { elicitation, task };
    const sampling: ServerRequestHandlers['sampling'] = (params, signal) => {
      const handler = this.#handlers.sampling;
      if (!handler) return Promise.reject(new Error('sampling is not configured on this host'));
      return handler(server, params, signal);
    };
    return { elicitation, sampling, task };
  }

  #onSlotChange(slot: ServerSlot, what: SlotChange): void {
    const server = slot.config.name;
    if (what === 'lists') {
      this.#registryStale = true;
    } else if (what === 'state') {
      // A server that became ready, failed or closed changes which tools exist.
      this.#registryStale = true;
      this.#emit({
        type: 'server_state',
        server,
        state: slot.state,
        ...(slot.error ? { error: slot.error } : {}),
        ...(slot.state === 'ready' ? { tools: slot.tools.length } : {}),
      });
    } else {
      this.#emit({ type: 'list_changed', server, list: what });
    }
  }

  #emit(event: HostEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        (this.#options.logger ?? silentLogger).warn('host event listener threw', error);
      }
    }
  }
}
