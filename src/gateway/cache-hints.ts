/**
 * The 2026-07-28 caching hints (`ttlMs`, `cacheScope` of CacheableResult: list results and resources/read)
 * carried from an upstream to the gateway's callers, never widened: a result without hints (an earlier
 * revision's) is private and stale at once, several results combine to the shortest ttl and to private when
 * any is, and anything from a per-principal upstream is private.
 */
import type { CacheScope } from '../mcp/types.js';

export interface Hints {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/** What a result without hints may be cached as: not at all, and never across principals. */
export const UNCACHED: Hints = { ttlMs: 0, cacheScope: 'private' };

/** A result's own hints; absent or malformed ones are UNCACHED's. */
export function hintsOf(result: unknown): Hints {
  if (typeof result !== 'object' || result === null) return UNCACHED;
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  const ttl = typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0 ? Math.floor(ttlMs) : 0;
  return { ttlMs: ttl, cacheScope: cacheScope === 'public' ? 'public' : 'private' };
}

/** The narrower of two hints: the shorter ttl, and the private scope when either has it. */
export function narrower(a: Hints, b: Hints): Hints {
  return {
    ttlMs: Math.min(a.ttlMs, b.ttlMs),
    cacheScope: a.cacheScope === 'private' || b.cacheScope === 'private' ? 'private' : 'public',
  };
}

/** Hints as a per-principal upstream's results get them: private, whatever the upstream said. */
export function privately(hints: Hints): Hints {
  return hints.cacheScope === 'private' ? hints : { ttlMs: hints.ttlMs, cacheScope: 'private' };
}

/** A list walked page by page, as the client's own listing does, with the narrowest hints of its pages. */
export async function listWithHints<T>(
  page: (cursor: string | undefined) => Promise<object>,
  field: string,
  maxPages = 10_000,
): Promise<{ items: T[]; hints: Hints }> {
  const items: T[] = [];
  let hints: Hints | undefined;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < maxPages; n++) {
    const result = (await page(cursor)) as Record<string, unknown>;
    items.push(...((result[field] as T[] | undefined) ?? []));
    hints = hints === undefined ? hintsOf(result) : narrower(hints, hintsOf(result));
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '' || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return { items, hints: hints ?? UNCACHED };
}
