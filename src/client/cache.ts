/**
 * 2026-07-28 server/utilities/caching: results of discover, the list methods and resources/read are fresh for
 * `ttlMs` after receipt. A cache shared between callers (`shared: true`) stores only `cacheScope: "public"`
 * results; a private one (one client, one authorization context) stores both.
 */
import { Method } from '../mcp/methods.js';

export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  Method.Discover,
  Method.ToolsList,
  Method.PromptsList,
  Method.ResourcesList,
  Method.ResourcesTemplatesList,
  Method.ResourcesRead,
]);

interface Entry {
  readonly result: Record<string, unknown>;
  readonly expiresAt: number;
}

export interface ResultCacheOptions {
  /** Shared across authorization contexts: never store private results. */
  shared?: boolean;
  /** Upper bound on entries; the oldest go first (default 1000). */
  maxEntries?: number;
}

export class ResultCache {
  readonly shared: boolean;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: ResultCacheOptions = {}) {
    this.shared = options.shared ?? false;
    this.#maxEntries = options.maxEntries ?? 1000;
  }

  /** The cache key: method plus the parameters that shape the result (never `_meta`). */
  static key(scope: string, method: string, params: Record<string, unknown> | undefined): string {
    if (!params) return `${scope}\n${method}`;
    const { _meta: _ignored, ...rest } = params;
    return `${scope}\n${method}\n${JSON.stringify(rest)}`;
  }

  get(key: string): Record<string, unknown> | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.result;
  }

  /** Stores a complete result if its hints allow it; returns whether it was stored. */
  store(key: string, result: Record<string, unknown>): boolean {
    const ttl = result.ttlMs;
    if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0) return false;
    if (result.resultType !== undefined && result.resultType !== 'complete') return false;
    const scope = result.cacheScope === 'public' ? 'public' : 'private';
    if (this.shared && scope !== 'public') return false;
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { result, expiresAt: Date.now() + ttl });
    return true;
  }

  /** Drops every entry of `method` under `scope` (a list_changed notification), or one key. */
  invalidate(scope: string, method: string, params?: Record<string, unknown>): void {
    if (params) {
      this.#entries.delete(ResultCache.key(scope, method, params));
      return;
    }
    const prefix = `${scope}\n${method}`;
    for (const key of [...this.#entries.keys()]) {
      if (key === prefix || key.startsWith(`${prefix}\n`)) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
