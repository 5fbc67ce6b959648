/**
 * What a client learned about a server that outlives one connection: the era it speaks (2026-07-28
 * basic/versioning: Backward Compatibility, so the next connect skips the probe) and which HTTP transport an
 * endpoint answered. Both are keyed by the server's identity (`targetKey`: the stdio command line or the
 * endpoint URL without its query).
 *
 * By default every client in the process shares one of each (`defaultEraCache`, `defaultTransportKindCache`):
 * a second client to the same server connects faster. Pass your own in `ClientOptions` to isolate clients, e.g.
 * two tenants of one process or tests that must detect afresh.
 */
import type { Era } from '../mcp/revisions.js';

export interface CachedEra {
  readonly era: Era;
  readonly version: string;
}

/** The era and version a server negotiated last time; re-probed when the assumption fails. */
export class EraCache {
  readonly #entries = new Map<string, CachedEra>();

  get(key: string): CachedEra | undefined {
    return this.#entries.get(key);
  }

  set(key: string, entry: CachedEra): void {
    this.#entries.set(key, entry);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

export type HttpKind = 'streamable-http' | 'sse';

/** Which HTTP transport answered an endpoint last time ('sse' skips the Streamable HTTP attempt). */
export class TransportKindCache {
  readonly #entries = new Map<string, HttpKind>();

  get(key: string): HttpKind | undefined {
    return this.#entries.get(key);
  }

  set(key: string, kind: HttpKind): void {
    this.#entries.set(key, kind);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** The process-wide caches clients use when their options name none. */
export const defaultEraCache = new EraCache();
export const defaultTransportKindCache = new TransportKindCache();
