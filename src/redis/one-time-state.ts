/**
 * One-time requestState claims in Redis: `SET <prefix>state:<nonce> 1 NX PXAT <expiry>` succeeds for the first
 * presentation only, whichever instance receives it, and the key goes when the state would have expired anyway,
 * so Redis holds at most the states still alive.
 */
import type { OneTimeStateStore } from '../server/one-time-state.js';
import {
  type OwnedClient,
  type RedisBackendOptions,
  keyPrefix,
  redisClient,
  release,
  shared,
} from './connection.js';

export class RedisOneTimeStateStore implements OneTimeStateStore {
  readonly #redis: OwnedClient;
  readonly #prefix: string;

  constructor(options: RedisBackendOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}state:`;
  }

  async claim(id: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(expiresAt - Date.now()));
    const answer = await shared(this.#redis.client.set(`${this.#prefix}${id}`, '1', 'PX', ttl, 'NX'));
    return answer === 'OK';
  }

  async close(): Promise<void> {
    await release(this.#redis);
  }
}
