/**
 * A response cache for the resources/read the gateway forwards, as 2026-07-28 server/utilities/caching allows
 * an intermediary: a result is fresh for its `ttlMs`; `cacheScope: "public"` may be served to any caller,
 * `"private"` only within the authorization context it was made for (here: the principal), and caches MUST
 * NOT be shared across authorization contexts. A result without hints (ttlMs 0 or absent, an earlier
 * revision's upstream) is not cached. An upstream's notifications/resources/updated makes what is cached for
 * that URI stale at once ("Interaction with Notifications"). The store is an interface: this process's memory
 * by default, Redis (agentforge/redis) for several gateway instances.
 */
import { compareVersions } from '../mcp/revisions.js';
import type { ReadResourceResult } from '../mcp/types.js';
import { isRecord } from '../util/record.js';
import type { Logger } from '../util/logger.js';

/** A stored response and how long it stays fresh from now. */
export interface CachedResponse {
  readonly value: string;
  readonly ttlMs: number;
}

export interface ResponseCache {
  /** The fresh entry under `key`, with its remaining time to live; undefined when absent or expired. */
  get(key: string): Promise<CachedResponse | undefined>;
  /** Stores `value` under `key` for `ttlMs`; a store may decline (too big) or evict it early. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

export interface InMemoryResponseCacheOptions {
  /** Entries at most; the least recently used go first (default 1,000). */
  readonly maxEntries?: number;
  /** Bytes of keys and values at most (default 32 MiB). */
  readonly maxBytes?: number;
  /** A larger value is not stored (default 1 MiB). */
  readonly maxEntryBytes?: number;
}

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
  readonly bytes: number;
}

/** The default: this process's memory, least recently used first out, bounded in entries and bytes. */
export class InMemoryResponseCache implements ResponseCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #maxEntryBytes: number;
  #bytes = 0;

  constructor(options: InMemoryResponseCacheOptions = {}) {
    this.#maxEntries = Math.max(0, options.maxEntries ?? 1000);
    this.#maxBytes = Math.max(0, options.maxBytes ?? 32 * 1024 * 1024);
    this.#maxEntryBytes = Math.min(this.#maxBytes, options.maxEntryBytes ?? 1024 * 1024);
  }

  /** Entries held now (expired ones included until they are looked up or evicted). */
  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#drop(key, entry);
    const ttlMs = entry.expiresAt - Date.now();
    if (ttlMs <= 0) return undefined;
    // Most recently used last: eviction takes from the front.
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    return { value: entry.value, ttlMs };
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const old = this.#entries.get(key);
    if (old) this.#drop(key, old);
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
    if (!(ttlMs > 0) || bytes > this.#maxEntryBytes || this.#maxEntries === 0) return;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size < this.#maxEntries && this.#bytes + bytes <= this.#maxBytes) break;
      this.#drop(oldest, entry);
    }
    this.#entries.set(key, { value, expiresAt: Date.now() + ttlMs, bytes });
    this.#bytes += bytes;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

type Scope = 'public' | 'private';

/** The revision that added server/utilities/caching (ttlMs, cacheScope). */
const CACHING_SINCE = '2026-07-28';

/** Longest time a response is kept, whatever its upstream says (a hint, not an obligation to keep it). */
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** Resources whose last update time is kept; past it the oldest is forgotten (its entries live out their TTL). */
const MAX_UPDATED = 10_000;

/**
 * The time a read is sent and an update is learned, as epoch ms with the monotonic clock's fraction of a ms:
 * Date.now()'s whole ms made a read sent in the same millisecond after an update look sent before it, so
 * it was never stored. Monotonic within this process; across instances sharing a store it is as good as
 * their wall clocks.
 */
export function cacheClock(): number {
  return performance.timeOrigin + performance.now();
}

/** One upstream read to store: whose it was, and when it was sent (an update after that makes it stale). */
export interface StoredRead {
  readonly server: string;
  readonly uri: string;
  readonly principal: string | undefined;
  /** When the request left for the upstream (`cacheClock`). */
  readonly sentAt: number;
}

/**
 * The forwarder's use of a ResponseCache: which key a read has for a caller, what may be stored, and a store
 * that fails (Redis away) as a miss with a warning, never a failed read.
 */
export class ReadCache {
  readonly #cache: ResponseCache;
  readonly #perPrincipal: ReadonlySet<string>;
  readonly #logger: Logger;
  /**
   * When each resource was last notified as updated, by this process's own upstream connections. Every
   * instance sharing a store subscribes upstream itself, so each learns of an update without a message
   * between instances; an entry written before the update is stale wherever it is read.
   */
  readonly #updated = new Map<string, number>();
  #failing = false;

  constructor(cache: ResponseCache, perPrincipal: ReadonlySet<string>, logger: Logger) {
    this.#cache = cache;
    this.#perPrincipal = perPrincipal;
    this.#logger = logger;
  }

  /**
   * The fresh cached read of `uri` on `server` this caller may be served, its ttlMs the time it has left and its
   * cacheScope the upstream's; undefined when there is none.
   */
  async lookup(
    server: string,
    uri: string,
    principal: string | undefined,
  ): Promise<ReadResourceResult | undefined> {
    // A per-principal server with no principal is refused on the way upstream, never served from here.
    if (this.#perPrincipal.has(server) && principal === undefined) return undefined;
    const keys: Array<[Scope, string]> = [['private', keyOf('private', server, uri, principal)]];
    if (!this.#perPrincipal.has(server)) keys.unshift(['public', keyOf('public', server, uri, principal)]);
    const found = await this.#guard(() => Promise.all(keys.map(([, key]) => this.#cache.get(key))));
    const updated = this.#updated.get(resourceKey(server, uri)) ?? 0;
    for (const [index, entry] of (found ?? []).entries()) {
      const result = entry && readStored(entry.value, keys[index]![0], updated);
      if (result)
        return { ...result, ttlMs: Math.max(1, Math.floor(entry.ttlMs)), cacheScope: keys[index]![0] };
    }
    return undefined;
  }

  /**
   * Stores an upstream's read when its hints allow: ttlMs above 0, a complete result, from an upstream speaking
   * a revision that defines the hints (a field of that name from an earlier one means nothing).
   */
  async store(read: StoredRead, protocolVersion: string, result: ReadResourceResult): Promise<void> {
    const { server, uri, principal, sentAt } = read;
    if (compareVersions(protocolVersion, CACHING_SINCE) < 0) return;
    if (sentAt <= (this.#updated.get(resourceKey(server, uri)) ?? 0)) return;
    if (!isRecord(result) || !Array.isArray(result.contents)) return;
    const { ttlMs, cacheScope, resultType } = result as {
      ttlMs?: unknown;
      cacheScope?: unknown;
      resultType?: unknown;
    };
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 1) return;
    if (resultType !== undefined && resultType !== 'complete') return;
    if (this.#perPrincipal.has(server) && principal === undefined) return;
    // Anything from a per-principal server was made with that caller's credentials: theirs alone.
    const scope: Scope = cacheScope === 'public' && !this.#perPrincipal.has(server) ? 'public' : 'private';
    const { ttlMs: _ttl, cacheScope: _scope, ...stored } = result as Record<string, unknown>;
    const key = keyOf(scope, server, uri, principal);
    const ttl = Math.min(Math.floor(ttlMs), MAX_TTL_MS);
    const value = JSON.stringify({ scope, at: sentAt, result: stored });
    await this.#guard(() => this.#cache.set(key, value, ttl));
  }

  /** The upstream notified that `uri` changed: every entry for it, any scope or principal, is stale from now. */
  invalidate(server: string, uri: string): void {
    const key = resourceKey(server, uri);
    this.#updated.delete(key);
    if (this.#updated.size >= MAX_UPDATED) this.#updated.delete(this.#updated.keys().next().value!);
    this.#updated.set(key, cacheClock());
  }

  /** A failing store is a miss; warned about once until it works again. */
  async #guard<T>(operation: () => Promise<T>): Promise<T | undefined> {
    try {
      const value = await operation();
      this.#failing = false;
      return value;
    } catch (error) {
      if (!this.#failing) this.#logger.warn('gateway: response cache unavailable, reading upstream', error);
      this.#failing = true;
      return undefined;
    }
  }
}

/** Public entries are one for every caller; private ones one per principal (an unauthenticated endpoint: one). */
function keyOf(scope: Scope, server: string, uri: string, principal: string | undefined): string {
  return JSON.stringify(scope === 'public' ? [scope, server, uri] : [scope, principal ?? null, server, uri]);
}

function resourceKey(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}

/**
 * A stored read from untrusted text (another process may have written it): undefined unless well-formed and
 * sent after the resource's last update.
 */
function readStored(text: string, scope: Scope, updated: number): ReadResourceResult | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || parsed.scope !== scope || !isRecord(parsed.result)) return undefined;
  if (typeof parsed.at !== 'number' || parsed.at <= updated) return undefined;
  const result = parsed.result;
  if (!Array.isArray(result.contents) || !result.contents.every(isRecord)) return undefined;
  return result as unknown as ReadResourceResult;
}
