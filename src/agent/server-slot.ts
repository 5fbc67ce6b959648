/**
 * One configured server inside the host: its connection attempts (with a timeout and retries), the lists it
 * last returned, and flags its notifications raise. A slot never throws at the host: failures become its
 * `state` and `error`, so one broken or slow server never blocks or breaks the others.
 */
import type { ServerLogs } from './server-logs.js';
import { LocalError } from '../jsonrpc/errors.js';
import type { LoggingLevel, LoggingMessageParams, Prompt, Resource, Tool } from '../mcp/types.js';
import { delay } from '../util/abort.js';
import type { Logger } from '../util/logger.js';
import type { ClientEvent, Connector, HostClient, ServerRequestHandlers } from './client-surface.js';
import type { ServerConfig } from './config.js';
import type { ServerSnapshot } from './registry.js';

export type SlotChange = 'state' | 'lists' | ClientEvent;

export type ServerState = 'disabled' | 'connecting' | 'ready' | 'failed' | 'closed';

export interface ServerStatus {
  readonly name: string;
  readonly state: ServerState;
  /** Connection attempts so far (including reconnections). */
  readonly attempts: number;
  readonly error?: string;
  readonly protocolVersion?: string;
  readonly era?: 'handshake' | 'stateless';
  readonly serverName?: string;
  readonly toolCount: number;
  /** Where this server's stderr is kept (stdio servers, when the host keeps server logs). */
  readonly logFile?: string;
}

export interface RetryPolicy {
  /** Attempts per connection (first try included). Default 3. */
  readonly maxAttempts: number;
  /** Wait before the second attempt; doubles after each failure. Default 500 ms. */
  readonly backoffMs: number;
}

export interface SlotOptions {
  readonly connector: Connector;
  readonly handlers: ServerRequestHandlers;
  readonly connectTimeoutMs: number;
  /** How long a refresh waits for this server's lists before going on with the previous ones. */
  readonly refreshTimeoutMs: number;
  readonly retry: RetryPolicy;
  /** Reconnect (per `retry`) after an established connection drops. */
  readonly reconnect: boolean;
  readonly logger: Logger;
  readonly serverLogs?: ServerLogs;
  /** The server log level to ask for; without it none is asked for. */
  readonly logLevel?: LoggingLevel;
  /** Each notifications/message of the current connection. */
  readonly onLog?: (slot: ServerSlot, message: LoggingMessageParams) => void;
  /**
   * State changes, notifications, and `lists` (a late refresh landed), for the host's events and its
   * "registry is stale" flag.
   */
  readonly onChange: (slot: ServerSlot, what: SlotChange) => void;
}

export class ServerSlot {
  state: ServerState;
  attempts = 0;
  error: string | undefined;
  client: HostClient | undefined;
  tools: readonly Tool[] = [];
  resources: readonly Resource[] | undefined;
  prompts: readonly Prompt[] | undefined;
  /** Lists to fetch again at the next refresh (set by list_changed notifications). */
  readonly stale = { tools: false, resources: false, prompts: false };
  /** A refresh that outlasted `refreshTimeoutMs`, still on its way. */
  #lateRefresh: Promise<void> | undefined;
  /** Settles when the current connection attempt series ends, ready or failed. */
  connecting: Promise<void> = Promise.resolve();
  /** The attempts to connect again after a working connection was lost, while they last. */
  reconnecting: Promise<void> | undefined;
  readonly #shutdown = new AbortController();
  /** Connection attempts abandoned (timed out) but still winding down their server. */
  readonly #opening = new Set<Promise<void>>();

  readonly #options: SlotOptions;

  constructor(
    readonly config: ServerConfig,
    options: SlotOptions,
  ) {
    this.#options = options;
    this.state = config.enabled ? 'connecting' : 'disabled';
  }

  status(): ServerStatus {
    const client = this.client;
    return {
      name: this.config.name,
      state: this.state,
      attempts: this.attempts,
      ...(this.error === undefined ? {} : { error: this.error }),
      ...(client?.protocolVersion === undefined ? {} : { protocolVersion: client.protocolVersion }),
      ...(client?.era === undefined ? {} : { era: client.era }),
      ...(client?.serverInfo?.name === undefined ? {} : { serverName: client.serverInfo.name }),
      toolCount: this.tools.length,
      ...(this.#options.serverLogs && this.config.target.kind === 'stdio'
        ? { logFile: this.#options.serverLogs.pathOf(this.config.name) }
        : {}),
    };
  }

  snapshot(): ServerSnapshot {
    return {
      config: this.config,
      tools: this.tools,
      ...(this.resources === undefined ? {} : { resources: this.resources }),
      ...(this.prompts === undefined ? {} : { prompts: this.prompts }),
    };
  }

  start(): Promise<void> {
    if (!this.config.enabled) return this.connecting;
    this.connecting = this.#connectWithRetries();
    return this.connecting;
  }

  /**
   * Fetches again whatever a notification marked stale. A server slower than `refreshTimeoutMs` keeps its
   * previous lists for this turn, so it never holds up the others; its answer is applied when it lands (the
   * host hears `lists` and refreshes the registry before the next turn). A failure keeps the previous lists
   * and is tried again at the next refresh.
   */
  async refreshLists(signal?: AbortSignal): Promise<boolean> {
    const client = this.client;
    if (this.state !== 'ready' || !client || this.#lateRefresh) return false;
    const { stale } = this;
    if (!stale.tools && !stale.resources && !stale.prompts) return false;
    const want = { ...stale };
    stale.tools = stale.resources = stale.prompts = false;
    const fetching = this.#fetchLists(client, want, undefined, () => client === this.client).then(
      () => client === this.client,
      (error: unknown) => {
        this.#options.logger.warn(`refreshing lists of ${this.config.name} failed`, messageOf(error));
        if (client === this.client) {
          stale.tools ||= want.tools;
          stale.resources ||= want.resources;
          stale.prompts ||= want.prompts;
        }
        return false;
      },
    );
    const waited = new AbortController();
    const stop = signal ? AbortSignal.any([signal, waited.signal]) : waited.signal;
    const timedOut = delay(this.#options.refreshTimeoutMs, stop).then(
      () => undefined,
      () => undefined,
    );
    const onTime = await Promise.race([fetching, timedOut]);
    waited.abort();
    if (onTime !== undefined) return onTime;
    this.#lateRefresh = fetching.then((applied) => {
      this.#lateRefresh = undefined;
      if (applied) this.#options.onChange(this, 'lists');
    });
    return false;
  }

  async close(): Promise<void> {
    this.#shutdown.abort(new LocalError('cancelled', 'host closed'));
    this.state = this.config.enabled ? 'closed' : 'disabled';
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await Promise.all(this.#opening);
  }

  async #connectWithRetries(): Promise<void> {
    const { retry, logger } = this.#options;
    for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
      if (this.#shutdown.signal.aborted) return;
      this.attempts++;
      this.#setState('connecting');
      try {
        await this.#connectOnce();
        this.error = undefined;
        this.#setState('ready');
        return;
      } catch (error) {
        this.error = messageOf(error);
        logger.warn(`server ${this.config.name}: attempt ${attempt} failed`, this.error);
      }
      if (attempt < retry.maxAttempts) {
        await delay(retry.backoffMs * 2 ** (attempt - 1), this.#shutdown.signal).catch(() => undefined);
      }
    }
    if (!this.#shutdown.signal.aborted) this.#setState('failed');
  }

  async #connectOnce(): Promise<void> {
    const attempt = new AbortController();
    const abortAttempt = () => attempt.abort(this.#shutdown.signal.reason);
    this.#shutdown.signal.addEventListener('abort', abortAttempt, { once: true });
    const timer = setTimeout(
      () =>
        attempt.abort(new LocalError('timeout', `no connection within ${this.#options.connectTimeoutMs} ms`)),
      this.#options.connectTimeoutMs,
    );
    let client: HostClient | undefined;
    const onEvent = (event: ClientEvent, reason?: string) => this.#onClientEvent(client, event, reason);
    try {
      const logs = this.#options.serverLogs;
      const opening = this.#options.connector(this.config, {
        handlers: this.#options.handlers,
        onEvent,
        signal: attempt.signal,
        ...(logs && this.config.target.kind === 'stdio'
          ? { onStderr: (line: string) => logs.line(this.config.name, line) }
          : {}),
        ...(this.#options.logLevel ? { logLevel: this.#options.logLevel } : {}),
        ...(this.#options.onLog ? { onLog: (message) => this.#options.onLog?.(this, message) } : {}),
      });
      // A connection that lands after the timeout is closed, never leaked; one still opening is awaited on
      // close, so its server process is gone before the host is.
      const settled = opening.then(
        async (late) => {
          if (attempt.signal.aborted) await late.close().catch(() => undefined);
        },
        () => undefined,
      );
      this.#opening.add(settled);
      void settled.then(() => this.#opening.delete(settled));
      client = await raceAbort(opening, attempt.signal);
      await raceAbort(
        this.#fetchLists(
          client,
          { tools: true, resources: true, prompts: true },
          attempt.signal,
          () => !attempt.signal.aborted,
        ),
        attempt.signal,
      );
      this.client = client;
    } catch (error) {
      await client?.close().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
      this.#shutdown.signal.removeEventListener('abort', abortAttempt);
    }
  }

  async #fetchLists(
    client: HostClient,
    want: { tools: boolean; resources: boolean; prompts: boolean },
    signal: AbortSignal | undefined,
    current: () => boolean,
  ): Promise<void> {
    const capabilities = client.serverCapabilities ?? {};
    const options = signal ? { signal } : {};
    const [tools, resources, prompts] = await Promise.all([
      want.tools && capabilities.tools !== undefined ? client.listTools(options) : undefined,
      want.resources && capabilities.resources !== undefined ? client.listResources(options) : undefined,
      want.prompts && capabilities.prompts !== undefined ? client.listPrompts(options) : undefined,
    ]);
    // Lists of a connection that has since been dropped or replaced are old news.
    if (!current()) return;
    if (tools) this.tools = tools;
    else if (want.tools && capabilities.tools === undefined) this.tools = [];
    if (resources) this.resources = resources;
    if (prompts) this.prompts = prompts;
  }

  #onClientEvent(client: HostClient | undefined, event: ClientEvent, reason?: string): void {
    // Events of a connection we already dropped (or that never finished opening) are old news.
    if (client === undefined || client !== this.client) return;
    if (event === 'close') {
      this.connectionLost(client, reason ? `connection closed: ${reason}` : 'connection closed');
      return;
    }
    if (event === 'toolsListChanged') this.stale.tools = true;
    if (event === 'resourcesListChanged') this.stale.resources = true;
    if (event === 'promptsListChanged') this.stale.prompts = true;
    this.#options.onChange(this, event);
  }

  /**
   * The connection to `client` is gone: its process exited, or (over HTTP, where nothing stays open to
   * notice) a request could not reach the server. Its tools leave at the next refresh and, per policy, the
   * host reconnects. A connection already replaced is left alone.
   */
  connectionLost(client: HostClient, reason: string): void {
    if (client !== this.client || this.state === 'closed') return;
    this.client = undefined;
    this.tools = [];
    this.resources = this.prompts = undefined;
    this.error = reason;
    this.#setState('failed');
    void client.close().catch(() => undefined);
    if (this.#options.reconnect && !this.#shutdown.signal.aborted) {
      const reconnecting = this.start().finally(() => {
        if (this.reconnecting === reconnecting) this.reconnecting = undefined;
      });
      this.reconnecting = reconnecting;
    }
  }

  #setState(state: ServerState): void {
    if (this.state === state) return;
    this.state = state;
    this.#options.onChange(this, 'state');
  }
}

/** Waits, until `signal` aborts, for every slot reconnecting after a lost connection to be ready or failed. */
export function reconnections(slots: Iterable<ServerSlot>, signal?: AbortSignal): Promise<void> | undefined {
  let pending: Promise<unknown>[] | undefined;
  for (const slot of slots) if (slot.reconnecting) (pending ??= []).push(slot.reconnecting);
  // Nothing restarting (every turn but a rare one): no promise, no extra turn of the microtask queue.
  if (!pending) return undefined;
  const all = Promise.all(pending).then(() => undefined);
  return (signal ? raceAbort(all, signal) : all).catch(() => undefined);
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
