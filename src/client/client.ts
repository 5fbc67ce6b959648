import type { Result } from '../jsonrpc/connection.js';
import { LocalError } from '../mcp/local-errors.js';
import { Method } from '../mcp/methods.js';
import type { Era } from '../mcp/revisions.js';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  SubscriptionFilter,
  Tool,
} from '../mcp/types.js';
import { StdioClientTransport } from '../transports/stdio/client.js';
import { ResultCache } from './cache.js';
import { ClientCore } from './core.js';
import { pageWithSafeIcons, withSafeIcons } from './icons.js';
import type { ClientEventListener, ClientEventName } from './events.js';
import { checkListPage } from './result-shapes.js';
import type { SubscribeOptions, Subscription } from './subscriptions.js';
import type { ClientOptions, ConnectTarget, RequestOptionsLite, UrlTarget } from './types.js';
import { isRecord } from '../util/record.js';
import type { CallOptions, NotificationListener } from './contracts.js';

/** The options of a call that passes none: one shared object, not one per call held while it is in flight. */
const NO_OPTIONS: CallOptions = Object.freeze({});

/** Following `nextCursor` stops here: a server that never ends its list is a bug, not a reason to hang. */
const MAX_PAGES = 10_000;

export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * An MCP client for any server from 2024-11-05 to 2026-07-28, over stdio, Streamable HTTP, HTTP+SSE or any
 * transport. It detects the server's era, answers its requests for input with the host's handlers, and never
 * waits forever.
 */
export class McpClient {
  readonly #core: ClientCore;

  private constructor(core: ClientCore) {
    this.#core = core;
  }

  static async connect(target: ConnectTarget | UrlTarget, options: ClientOptions = {}): Promise<McpClient> {
    const core = isUrlTarget(target)
      ? new ClientCore(target.url, urlTargetOptions(target, options))
      : new ClientCore(target, options);
    await core.establish();
    return new McpClient(core);
  }

  get era(): Era {
    return this.#core.codec.era;
  }

  get protocolVersion(): string {
    return this.#core.state.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    const info = this.#core.state.serverInfo;
    return info === undefined ? undefined : withSafeIcons(info);
  }

  get serverCapabilities(): ServerCapabilities {
    return this.#core.state.capabilities;
  }

  get instructions(): string | undefined {
    return this.#core.state.instructions;
  }

  /** The transport in use: 'stdio', 'streamable-http', 'sse' or 'custom'. */
  get transportKind(): string {
    return this.#core.link.kind;
  }

  /** The spawned server's process id (stdio; a restart spawns a new one), `undefined` for other transports. */
  get pid(): number | undefined {
    const transport = this.#core.link.transport;
    return transport instanceof StdioClientTransport ? transport.pid : undefined;
  }

  on<K extends ClientEventName>(name: K, listener: ClientEventListener<K>): () => void {
    return this.#core.events.on(name, listener);
  }

  off<K extends ClientEventName>(name: K, listener: ClientEventListener<K>): void {
    this.#core.events.off(name, listener);
  }

  /**
   * Settles once list changes flow for every list someone listens to (`toolsListChanged` etc.): at once where
   * the server pushes them (handshake era), after the acknowledgement of the client's subscriptions/listen
   * stream in the stateless era. Never rejects: without the stream the lists refresh on reconnection.
   */
  listChangesReady(): Promise<void> {
    return this.#core.listChanges.ready();
  }

  /** A cacheable read: served from the cache while fresh (2026-07-28 server/utilities/caching). */
  async #cached(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptionsLite = {},
  ): Promise<Result> {
    const cache = this.#core.cache;
    const key = ResultCache.key(this.#core.key, method, params);
    const hit = cache?.get(key);
    if (hit) return hit;
    const result = await this.#core.request(method, params, options, true);
    cache?.store(key, result);
    return result;
  }

  async #allPages<T>(method: string, field: string, options: RequestOptionsLite): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#page(method, field, cursor, options);
      items.push(...(result[field] as T[]));
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '') return items;
      if (seen.has(next))
        throw new LocalError('protocol_error', `${method} repeated cursor ${JSON.stringify(next)}`);
      seen.add(next);
      cursor = next;
    }
    throw new LocalError('protocol_error', `${method} returned more than ${MAX_PAGES} pages`);
  }

  /** One page of a list, checked by shape: `field` is an array, `nextCursor` a string if present. */
  async #page(
    method: string,
    field: string,
    cursor: string | undefined,
    options: RequestOptionsLite,
  ): Promise<Result> {
    const result = await this.#cached(method, cursor === undefined ? undefined : { cursor }, options);
    // Icons are untrusted: only safe ones reach the application (see icons.ts).
    return pageWithSafeIcons(checkListPage(result, field, this.#core.serverName, method), field);
  }

  listTools(options: RequestOptionsLite = {}): Promise<Tool[]> {
    return this.#allPages<Tool>(Method.ToolsList, 'tools', options);
  }

  async listToolsPage(cursor?: string, options: RequestOptionsLite = {}): Promise<ListToolsResult> {
    return (await this.#page(Method.ToolsList, 'tools', cursor, options)) as ListToolsResult;
  }

  listResources(options: RequestOptionsLite = {}): Promise<Resource[]> {
    return this.#allPages<Resource>(Method.ResourcesList, 'resources', options);
  }

  async listResourcesPage(cursor?: string, options: RequestOptionsLite = {}): Promise<ListResourcesResult> {
    return (await this.#page(Method.ResourcesList, 'resources', cursor, options)) as ListResourcesResult;
  }

  listResourceTemplates(options: RequestOptionsLite = {}): Promise<ResourceTemplate[]> {
    return this.#allPages<ResourceTemplate>(Method.ResourcesTemplatesList, 'resourceTemplates', options);
  }

  async listResourceTemplatesPage(
    cursor?: string,
    options: RequestOptionsLite = {},
  ): Promise<ListResourceTemplatesResult> {
    const page = await this.#page(Method.ResourcesTemplatesList, 'resourceTemplates', cursor, options);
    return page as ListResourceTemplatesResult;
  }

  listPrompts(options: RequestOptionsLite = {}): Promise<Prompt[]> {
    return this.#allPages<Prompt>(Method.PromptsList, 'prompts', options);
  }

  async listPromptsPage(cursor?: string, options: RequestOptionsLite = {}): Promise<ListPromptsResult> {
    return (await this.#page(Method.PromptsList, 'prompts', cursor, options)) as ListPromptsResult;
  }

  /**
   * Calls a tool. A result with `isError` is returned, not thrown; protocol errors throw RpcError. Never
   * retried after a connection failure unless `options.retry` is set (a call may have side effects).
   */
  callTool(params: CallToolParams, options: CallOptions = NO_OPTIONS): Promise<CallToolResult> {
    // One literal: a member added after creation goes to an out-of-object property array, held by every call
    // in flight.
    const body: Record<string, unknown> =
      params.arguments === undefined
        ? { name: params.name }
        : { name: params.name, arguments: params.arguments };
    // The common path: one promise chain, no async frame held per call in flight. The result's shape is
    // checked in the pipeline (src/client/request-options.ts, ResultChecks).
    return this.#core.request(Method.ToolsCall, body, options) as Promise<CallToolResult>;
  }

  async readResource(params: { uri: string }, options: CallOptions = {}): Promise<ReadResourceResult> {
    return (await this.#cached(Method.ResourcesRead, { uri: params.uri }, options)) as ReadResourceResult;
  }

  async getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const body: Record<string, unknown> = { name: params.name };
    if (params.arguments !== undefined) body.arguments = params.arguments;
    return (await this.#core.request(Method.PromptsGet, body, options, true)) as GetPromptResult;
  }

  async complete(params: Record<string, unknown>, options: CallOptions = {}): Promise<CompleteResult> {
    const result = await this.#core.request(Method.CompletionComplete, params, options, true);
    return result as CompleteResult;
  }

  /** Liveness: `ping` in the handshake era, an uncached server/discover in the stateless era. */
  async ping(options: RequestOptionsLite = {}): Promise<void> {
    await this.#core.request(this.#core.codec.pingMethod, undefined, options, true);
  }

  /** Sends any request through the era's codec (for methods this class has no helper for). */
  request(method: string, params?: Record<string, unknown>, options: CallOptions = {}): Promise<Result> {
    return this.#core.request(method, params, options);
  }

  /**
   * Change notifications, one API for both eras: subscriptions/listen (2026-07-28) or the server's pushed
   * notifications plus resources/subscribe (handshake era). Reopened after a restart.
   */
  subscribe(
    filter: SubscriptionFilter,
    onNotification: NotificationListener,
    options?: SubscribeOptions,
  ): Promise<Subscription> {
    return this.#core.ready().then(() => this.#core.subscriptions.subscribe(filter, onNotification, options));
  }

  async close(): Promise<void> {
    await this.#core.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function isUrlTarget(target: ConnectTarget | UrlTarget): target is UrlTarget {
  return isRecord(target) && 'url' in target && !('send' in target) && !('command' in target);
}

/** The entry's headers under the caller's, and its `type` as the transport to use. */
function urlTargetOptions(target: UrlTarget, options: ClientOptions): ClientOptions {
  const headers = target.headers ? { ...target.headers, ...options.headers } : options.headers;
  const transport =
    target.type === undefined ? options.transport : target.type === 'sse' ? 'sse' : 'streamable-http';
  return {
    ...options,
    ...(headers ? { headers } : {}),
    ...(transport ? { transport } : {}),
  };
}
