/**
 * One codec per protocol revision: the fields a revision's schema has, and how a result is finished for it.
 * 2026-07-28 results carry `resultType`, `_meta['io.modelcontextprotocol/serverInfo']` and, where cacheable,
 * `ttlMs`/`cacheScope`; older revisions get none of these, and lose the fields their schema does not define.
 */
import type { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode, resourceNotFound } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { compareVersions, eraOf } from '../mcp/revisions.js';
import { RpcError as WireError } from '../jsonrpc/errors.js';
import { serialisedOnce } from '../jsonrpc/serialise.js';
import type {
  CacheScope,
  ContentBlock,
  Implementation,
  JSONObject,
  ServerCapabilities,
} from '../mcp/types.js';
import { isRecord } from '../util/record.js';

export interface Cache {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

type Kind = 'tool' | 'resource' | 'resourceTemplate' | 'prompt' | 'implementation';

/** The revision that introduced each optional field, by kind (checked against spec/<revision>/schema.json). */
const INTRODUCED: Record<Kind, Record<string, string>> = {
  tool: {
    annotations: '2025-03-26',
    title: '2025-06-18',
    outputSchema: '2025-06-18',
    _meta: '2025-06-18',
    icons: '2025-11-25',
  },
  resource: { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' },
  resourceTemplate: { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' },
  prompt: { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' },
  implementation: {
    title: '2025-06-18',
    description: '2025-11-25',
    icons: '2025-11-25',
    websiteUrl: '2025-11-25',
  },
};

/** True when absent, or a schema whose root is `type: "object"` (what handshake revisions allow). */
function isObjectRooted(schema: unknown): boolean {
  return schema === undefined || (isRecord(schema) && schema.type === 'object');
}

/**
 * A shallow copy of an object's own enumerable members. A loop on purpose: on Node 20, adding a member to a spread
 * copy (`{ ...result, resultType }`) costs about a microsecond and leaves garbage that survives scavenges.
 */
export function copyObject(source: JSONObject): JSONObject {
  const copy: JSONObject = {};
  // for-in with an own-member test, not Object.keys: the same members in the same order, and no array per copy.
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    // A `__proto__` member (JSON.parse makes it an own property) stays a member, as spreading keeps it.
    if (key === '__proto__')
      Object.defineProperty(copy, key, {
        value: source[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = source[key];
  }
  return copy;
}

export class RevisionCodec {
  readonly revision: string;
  readonly modern: boolean;
  readonly #serverInfo: Implementation;
  /** The `_meta` of every 2026-07-28 result that brings none: shared, its JSON text made once. */
  readonly #resultMeta: JSONObject;
  readonly #dropped: Record<Kind, string[]>;

  constructor(revision: string, serverInfo: Implementation) {
    this.revision = revision;
    this.modern = eraOf(revision) === 'stateless';
    this.#dropped = {} as Record<Kind, string[]>;
    for (const kind of Object.keys(INTRODUCED) as Kind[]) {
      this.#dropped[kind] = Object.entries(INTRODUCED[kind])
        .filter(([, since]) => compareVersions(revision, since) < 0)
        .map(([field]) => field);
    }
    this.#serverInfo = this.shape(
      'implementation',
      serverInfo as unknown as JSONObject,
    ) as unknown as Implementation;
    this.#resultMeta = serialisedOnce({ [MetaKey.ServerInfo]: this.#serverInfo }) as JSONObject;
  }

  get serverInfo(): Implementation {
    return this.#serverInfo;
  }

  /** A list item or Implementation with the fields this revision lacks removed (a copy only when needed). */
  shape(kind: Kind, item: JSONObject): JSONObject {
    const dropped = this.#dropped[kind];
    const narrowOutput = kind === 'tool' && !this.modern && !isObjectRooted(item.outputSchema);
    if (!narrowOutput && !dropped.some((field) => field in item)) return item;
    const copy = { ...item };
    for (const field of dropped) delete copy[field];
    // 2025-06-18..2025-11-25 restrict outputSchema to `type: "object"`; a tool whose output is any other JSON
    // value (2026-07-28 server/tools: Structured Content) is listed there without one.
    if (narrowOutput) delete copy.outputSchema;
    if (
      kind === 'prompt' &&
      Array.isArray(copy.arguments) &&
      compareVersions(this.revision, '2025-06-18') < 0
    ) {
      copy.arguments = (copy.arguments as JSONObject[]).map(({ title: _title, ...rest }) => rest);
    }
    return copy;
  }

  /** Content blocks this revision can carry: audio (2025-03-26) and resource links (2025-06-18) degrade to text. */
  content(blocks: ContentBlock[]): ContentBlock[] {
    if (compareVersions(this.revision, '2025-06-18') >= 0) return blocks;
    const hasAudio = compareVersions(this.revision, '2025-03-26') >= 0;
    return blocks.map((block): ContentBlock => {
      const { _meta: _dropped, ...rest } = block as ContentBlock & { _meta?: unknown };
      if (block.type === 'resource_link') return { type: 'text', text: `Resource: ${block.uri}` };
      if (block.type === 'audio' && !hasAudio)
        return { type: 'text', text: `[audio content (${block.mimeType}) omitted]` };
      return rest as ContentBlock;
    });
  }

  capabilities(capabilities: ServerCapabilities): ServerCapabilities {
    if (compareVersions(this.revision, '2025-03-26') >= 0) return capabilities;
    const { completions: _completions, ...rest } = capabilities;
    return rest;
  }

  /**
   * Finishes a result for the wire: on 2026-07-28 adds resultType (keeping an input_required one), serverInfo
   * and, for cacheable results, the caching hints.
   */
  finish(result: JSONObject, cache?: Cache): JSONObject {
    if (!this.modern) return result;
    const meta = result._meta;
    const finished = copyObject(result);
    finished.resultType = result.resultType ?? 'complete';
    if (cache) {
      finished.ttlMs = cache.ttlMs;
      finished.cacheScope = cache.cacheScope;
    }
    // Last, so a result without meta of its own is serialised with the shared meta's text spliced in.
    if (isRecord(meta)) {
      const merged = copyObject(meta);
      merged[MetaKey.ServerInfo] = this.#serverInfo;
      finished._meta = merged;
    } else {
      finished._meta = this.#resultMeta;
    }
    return finished;
  }

  /** SEP-2164 made "resource not found" -32602 (2026-07-28); earlier revisions specify -32002. */
  resourceNotFound(uri: string): RpcError {
    if (this.modern) return resourceNotFound(uri);
    return new WireError(McpErrorCode.LegacyResourceNotFound, `Resource not found: ${uri}`, { uri });
  }
}

/** One codec per revision, built once per server. */
export function buildCodecs(
  revisions: readonly string[],
  serverInfo: Implementation,
): Map<string, RevisionCodec> {
  return new Map(revisions.map((revision) => [revision, new RevisionCodec(revision, serverInfo)]));
}
