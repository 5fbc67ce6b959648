import type { Result } from '../jsonrpc/connection.js';
import { LocalError, RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode } from '../mcp/errors.js';
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
import { ResultCache } from './cache.js';
import { ClientCore } from './core.js';
import { pageWithSafeIcons, withSafeIcons } from './icons.js';
import type { ClientEventListener, ClientEventName } from './events.js';
import type { NotificationListener, Subscription } from './subscriptions.js';
import type { CallOptions, ClientOptions, ConnectTarget, RequestOptionsLite } from './types.js';

/** The array each list method's result carries. */
const LIST_FIELD: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

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

  static async connect(target: ConnectTarget, options: ClientOptions = {}): Promise<McpClient> {
    const core = new ClientCore(target, options);
    await core.establish();
    return new McpClient(core);
  }

  get era(): Era {
    return this.#core.state.era;
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

  on<K extends ClientEventName>(name: K, listener: ClientEventListener<K>): () => void {
    return this.#core.events.on(name, listener);
  }

  off<K extends ClientEventName>(name: K, listener: ClientEventListener<K>): void {
    this.#core.events.off(name, listener);
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
      const result = await this.#page(method, cursor, options);
      const list = result[field];
      if (Array.isArray(list)) items.push(...(list as T[]));
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '') return items;
      if (seen.has(next))
        throw new LocalError('protocol_error', `${method} repeated cursor ${JSON.stringify(next)}`);
      seen.add(next);
      cursor = next;
    }
    throw new LocalError('protocol_error', `${method} returned more than ${MAX_PAGES} pages`);
  }

  async #page(method: string, cursor: string | undefined, options: RequestOptionsLite): Promise<Result> {
    const listed = await this.#cached(method, cursor === undefined ? undefined : { cursor }, options);
    // Icons are untrusted: only safe ones reach the application (see icons.ts).
    const result = pageWithSafeIcons(listed, LIST_FIELD[method] ?? '');
    if (method !== 'tools/list' || !this.#mirrorsToolHeaders()) return result;
    // 2026-07-28 streamable-http: tools with invalid x-mcp-header declarations are excluded, with a warning.
    const tools = Array.isArray(result.tools) ? (result.tools as Tool[]) : [];
    return { ...result, tools: this.#core.toolHeaders.filter(tools, this.#core.logger) };
  }

  #mirrorsToolHeaders(): boolean {
    return this.#core.state.era === 'stateless' && this.#core.link.kind === 'streamable-http';
  }

  listTools(options: RequestOptionsLite = {}): Promise<Tool[]> {
    return this.#allPages<Tool>('tools/list', 'tools', options);
  }

  async listToolsPage(cursor?: string, options: RequestOptionsLite = {}): Promise<ListToolsResult> {
    return (await this.#page('tools/list', cursor, options)) as ListToolsResult;
  }

  listResources(options: RequestOptionsLite = {}): Promise<Resource[]> {
    return this.#allPages<Resource>('resources/list', 'resources', options);
  }

  async listResourcesPage(cursor?: string, options: RequestOptionsLite = {}): Promise<ListResourcesResult> {
    return (await this.#page('resources/list', cursor, options)) as ListResourcesResult;
  }

  listResourceTemplates(options: RequestOptionsLite = {}): Promise<ResourceTemplate[]> {
    return this.#allPages<ResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }

  async listResourceTemplatesPage(
    cursor?: string,
    options: RequestOptionsLite = {},
  ): Promise<ListResourceTemplatesResult> {
    return (await this.#page('resources/templates/list', cursor, options)) as ListResourceTemplatesResult;
  }

  listPrompts(options: RequestOptionsLite = {}): Promise<Prompt[]> {
    return this.#allPages<Prompt>('prompts/list', 'prompts', options);
  }

  async listPromptsPage(cursor?: string, options: RequestOptionsLite = {}): Promise<ListPromptsResult> {
    return (await this.#page('prompts/list', cursor, options)) as ListPromptsResult;
  }

  /**
   * Calls a tool. A result with `isError` is returned, not thrown; protocol errors throw RpcError. Never
   * retried after a connection failure unless `options.retry` is set (a call may have side effects).
   */
  callTool(params: CallToolParams, options: CallOptions = {}): Promise<CallToolResult> {
    try {
      const body: Record<string, unknown> = { name: params.name };
      if (params.arguments !== undefined) body.arguments = params.arguments;
      if (
        this.#mirrorsToolHeaders() &&
        !this.#core.toolHeaders.has(params.name) &&
        !this.#core.toolHeaders.known
      ) {
        return this.#learnHeadersThenCall(body, options);
      }
      // The common path: one promise chain, no async frame held per call in flight. Only a link that mirrors
      // tool headers can see HeaderMismatch, so only it pays for the handler.
      const sent = this.#core.request('tools/call', body, options) as Promise<CallToolResult>;
      if (!this.#mirrorsToolHeaders()) return sent;
      return sent.catch((error: unknown) => this.#retryOnHeaderMismatch(error, body, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The Mcp-Param-* headers come from the tool's inputSchema: learn it before the first call, within the
   * call's own time and cancellation.
   */
  async #learnHeadersThenCall(body: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const listOptions: RequestOptionsLite = {};
    if (options.signal) listOptions.signal = options.signal;
    if (options.timeoutMs !== undefined) listOptions.timeoutMs = options.timeoutMs;
    await this.listTools(listOptions).catch(() => undefined);
    try {
      return (await this.#core.request('tools/call', body, options)) as CallToolResult;
    } catch (error) {
      return this.#retryOnHeaderMismatch(error, body, options);
    }
  }

  async #retryOnHeaderMismatch(
    error: unknown,
    body: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    if (
      !(error instanceof RpcError) ||
      error.code !== McpErrorCode.HeaderMismatch ||
      !this.#mirrorsToolHeaders()
    ) {
      throw error;
    }
    // streamable-http Client Behavior: on HeaderMismatch, refresh tools/list, then retry with fresh headers.
    this.#core.cache?.invalidate(this.#core.key, 'tools/list');
    await this.listTools();
    return (await this.#core.request('tools/call', body, options)) as CallToolResult;
  }

  async readResource(params: { uri: string }, options: CallOptions = {}): Promise<ReadResourceResult> {
    return (await this.#cached('resources/read', { uri: params.uri }, options)) as ReadResourceResult;
  }

  async getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const body: Record<string, unknown> = { name: params.name };
    if (params.arguments !== undefined) body.arguments = params.arguments;
    return (await this.#core.request('prompts/get', body, options, true)) as GetPromptResult;
  }

  async complete(params: Record<string, unknown>, options: CallOptions = {}): Promise<CompleteResult> {
    return (await this.#core.request('completion/complete', params, options, true)) as CompleteResult;
  }

  /** Liveness: `ping` in the handshake era, an uncached server/discover in the stateless era. */
  async ping(options: RequestOptionsLite = {}): Promise<void> {
    const method = this.#core.state.era === 'stateless' ? 'server/discover' : 'ping';
    await this.#core.request(method, undefined, options, true);
  }

  /** Sends any request through the era's codec (for methods this class has no helper for). */
  request(method: string, params?: Record<string, unknown>, options: CallOptions = {}): Promise<Result> {
    return this.#core.request(method, params, options);
  }

  /**
   * Change notifications, one API for both eras: subscriptions/listen (2026-07-28) or the server's pushed
   * notifications plus resources/subscribe (handshake era). Reopened after a restart.
   */
  subscribe(filter: SubscriptionFilter, onNotification: NotificationListener): Promise<Subscription> {
    return this.#core.ready().then(() => this.#core.subscriptions.subscribe(filter, onNotification));
  }

  async close(): Promise<void> {
    await this.#core.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
