/**
 * The gateway's response cache on Redis (`createGateway({ shared: { responseCache } })`): a resources/read one
 * gateway instance fetched is served by every instance while fresh. One string per entry,
 * `<prefix>gateway:cache:<digest of the key>` (a long URI or principal makes no long key, and the principal
 * never appears in Redis), SET with PX for the upstream's ttlMs; the remaining time is Redis's PTTL, so the
 * instances' clocks do not matter. Values above a size cap are neither stored nor read back.
 */
import { createHash } from 'node:crypto';
import type { CachedResponse, ResponseCache } from '../gateway/response-cache.js';
import {
  type OwnedClient,
  type RedisBackendOptions,
  SharedStateUnavailableError,
  keyPrefix,
  redisClient,
  release,
  shared,
} from './connection.js';

/** ioredis connection states in which Redis cannot answer until a reconnection succeeds. */
const LOST: ReadonlySet<string> = new Set(['reconnecting', 'close', 'end']);

export interface RedisResponseCacheOptions extends RedisBackendOptions {
  /** Largest value stored or read back, in bytes (default 512 KiB). */
  maxValueBytes?: number;
}

export class RedisResponseCache implements ResponseCache {
  readonly #redis: OwnedClient;
  readonly #prefix: string;
  readonly #maxValueBytes: number;

  constructor(options: RedisResponseCacheOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}gateway:cache:`;
    this.#maxValueBytes = Math.max(0, options.maxValueBytes ?? 512 * 1024);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const id = this.#key(key);
    this.#connected();
    const replies = await shared(this.#redis.client.multi().get(id).pttl(id).exec());
    const [[, value], [, pttl]] = (replies ?? [[], []]) as [[unknown, unknown], [unknown, unknown]];
    if (typeof value !== 'string' || Buffer.byteLength(value) > this.#maxValueBytes) return undefined;
    // PTTL is -1 for a key without expiry (not written here) and -2 once gone: neither is fresh.
    return typeof pttl === 'number' && pttl > 0 ? { value, ttlMs: pttl } : undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (!(ttlMs >= 1) || Buffer.byteLength(value) > this.#maxValueBytes) return;
    this.#connected();
    await shared(this.#redis.client.set(this.#key(key), value, 'PX', Math.floor(ttlMs)));
  }

  async close(): Promise<void> {
    await release(this.#redis);
  }

  /**
   * While the connection is lost a cache lookup is a miss at once, rather than a command waiting out the
   * reconnection: the read goes upstream without the delay. A connection still being made (or a lazy one not
   * yet made) is waited for, as for any command.
   */
  #connected(): void {
    const { status } = this.#redis.client;
    if (LOST.has(status)) throw new SharedStateUnavailableError(new Error(`Redis connection is ${status}`));
  }

  #key(key: string): string {
    return this.#prefix + createHash('sha256').update(key).digest('base64url');
  }
}
