/** The server's internal state as the era-specific front ends (session, stateless, stdio) see it. */
import type { Logger } from '../util/logger.js';
import type { CacheScope, Implementation, JSONObject, ServerCapabilities } from '../mcp/types.js';
import type { UriTemplate } from '../mcp/uri-template.js';
import type { Cache, RevisionCodec } from './codec.js';
import type { ExtensionHooks } from './extension-hooks.js';
import type { Collection } from './registry.js';
import type { OutgoingRequestHook, RequestHook } from './request-hook.js';
import type { RequestStateSealer } from './request-state.js';
import type { CompiledSchema } from './schema.js';
import type { ListenHub } from './subscriptions.js';
import type {
  CacheHints,
  Completer,
  PromptConfig,
  PromptHandler,
  ResourceHandler,
  ResourceMetadata,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
  ToolConfig,
  ToolHandler,
} from './types.js';

export interface ToolDefinition {
  readonly config: ToolConfig;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  /** Called with the value its input schema validated: typed by that schema at registration. */
  readonly handler: ToolHandler<unknown>;
}

export interface ResourceDefinition {
  readonly name: string;
  readonly metadata: ResourceMetadata;
  readonly handler: ResourceHandler;
}

export interface TemplateDefinition {
  readonly template: UriTemplate;
  readonly config: ResourceTemplateConfig;
  readonly handler: ResourceTemplateHandler;
}

export interface PromptDefinition {
  readonly config: PromptConfig;
  readonly handler: PromptHandler;
}

/** The lists a `listFilter` decides on. */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** Whether the caller (`authInfo` as the transport's auth guard set it) sees one entry of a list. */
export type ListFilter = (kind: ListKind, name: string, authInfo: unknown) => boolean;

export interface ServerCore {
  readonly serverInfo: Implementation;
  readonly instructions: string | undefined;
  readonly tools: Collection<ToolDefinition>;
  /** Static resources, keyed by URI. */
  readonly resources: Collection<ResourceDefinition>;
  /** Resource templates, keyed by name. */
  readonly templates: Collection<TemplateDefinition>;
  readonly prompts: Collection<PromptDefinition>;
  /** Per-caller list filtering (`McpServerOptions.listFilter`); undefined: every caller sees every entry. */
  readonly listFilter: ListFilter | undefined;
  readonly pageSize: number;
  readonly defaultCache: Cache;
  readonly sealer: RequestStateSealer;
  readonly logger: Logger;
  /** 2026-07-28 subscriptions/listen streams. */
  readonly listens: ListenHub;
  /** What `McpServer.use` installed: the tools/call and listen hooks (extension-hooks.ts). */
  readonly extensions: ExtensionHooks;
  /** `McpServerOptions.aroundRequest`: runs around every request of either era when set. */
  readonly aroundRequest: RequestHook | undefined;
  /** `McpServerOptions.aroundOutgoingRequest`: runs around every request to the client when set. */
  readonly aroundOutgoingRequest: OutgoingRequestHook | undefined;
  codec(revision: string): RevisionCodec;
  capabilities(): ServerCapabilities;
}

/**
 * Caching hints for a result made of these primitives: the shortest TTL any of them sets (else the server's),
 * and private if any of them is private.
 */
export function combineCache(defaults: Cache, hints: Iterable<CacheHints>): Cache {
  let ttlMs: number | undefined;
  let cacheScope: CacheScope = defaults.cacheScope;
  for (const hint of hints) {
    if (hint.ttlMs !== undefined) ttlMs = ttlMs === undefined ? hint.ttlMs : Math.min(ttlMs, hint.ttlMs);
    if (hint.cacheScope !== undefined)
      cacheScope = cacheScope === 'private' || hint.cacheScope === 'private' ? 'private' : 'public';
  }
  return { ttlMs: Math.max(0, Math.floor(ttlMs ?? defaults.ttlMs)), cacheScope };
}

export function completerFor(
  map: Record<string, Completer> | undefined,
  argument: string,
): Completer | undefined {
  return map && Object.hasOwn(map, argument) ? map[argument] : undefined;
}

export type WireObject = JSONObject;
