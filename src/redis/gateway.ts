/**
 * The gateway's shared state on Redis (`createGateway({ shared })`), so several gateway instances behind a
 * balancer behave as one:
 * - rate limits: a hash per token bucket `<prefix>gateway:rate:{<principal digest>}:<bucket>`, taken all or
 *   none by one script on Redis's own clock (no skew between instances), expiring once it would be full again;
 * - task routes: `<prefix>gateway:task:<id>` with the task's TTL;
 * - the bus: `<prefix>gateway:all` for broadcasts and `<prefix>gateway:to:<instance>` for one instance, on the
 *   backend's single subscriber connection.
 */
import { createHash, randomUUID } from 'node:crypto';
import type {
  GatewayBus,
  RateLimitRefusal,
  RateLimitStore,
  StoredTaskRoute,
  TaskRouteStore,
  TokenBucket,
} from '../gateway/shared-state.js';
import { readTaskRoute } from '../gateway/shared-state.js';
import { type Logger, silentLogger } from '../util/logger.js';
import {
  type OwnedClient,
  type RedisBackendOptions,
  keyPrefix,
  parseStored,
  redisClient,
  release,
  shared,
} from './connection.js';
import { RedisSubscriber } from './subscriber.js';

/**
 * KEYS = the buckets; ARGV = capacity and refill per second of each, in order. Returns 0 when a token was
 * taken from every bucket, else { index (1-based), milliseconds until that bucket holds a token }.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tokens = {}
for i, key in ipairs(KEYS) do
  local capacity = tonumber(ARGV[2 * i - 1])
  local rate = tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local left, at = tonumber(state[1]), tonumber(state[2])
  if left == nil or at == nil then left = capacity
  else left = math.min(capacity, left + math.max(0, now - at) / 1000 * rate) end
  if left < 1 then return { i, math.ceil((1 - left) / rate * 1000) } end
  tokens[i] = left
end
for i, key in ipairs(KEYS) do
  local capacity = tonumber(ARGV[2 * i - 1])
  local rate = tonumber(ARGV[2 * i])
  redis.call('HSET', key, 'tokens', tostring(tokens[i] - 1), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.ceil(capacity / rate * 1000) + 1000)
end
return 0`;

interface RateScripts {
  agentforgeRateTake(...args: Array<string | number>): Promise<number | [number, number]>;
}

/** Token buckets in Redis: a principal's limit holds across every gateway instance. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: OwnedClient;
  readonly #prefix: string;

  constructor(options: RedisBackendOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}gateway:rate:`;
    this.#redis.client.defineCommand('agentforgeRateTake', { lua: TAKE });
  }

  async take(buckets: readonly TokenBucket[]): Promise<RateLimitRefusal | undefined> {
    if (buckets.length === 0) return undefined;
    const keys = buckets.map((bucket) => this.#key(bucket));
    const limits = buckets.flatMap((bucket) => [bucket.capacity, bucket.refillPerSecond]);
    const scripts = this.#redis.client as unknown as RateScripts;
    const answer = await shared(scripts.agentforgeRateTake(keys.length, ...keys, ...limits));
    if (!Array.isArray(answer)) return undefined;
    return { index: Number(answer[0]) - 1, retryAfterMs: Math.max(1, Number(answer[1])) };
  }

  async close(): Promise<void> {
    await release(this.#redis);
  }

  /**
   * Bucket keys name their principal by a digest in a hash tag: one principal's buckets share a Cluster slot
   * (the script takes them together), and a long principal or glob makes no long key.
   */
  #key(bucket: TokenBucket): string {
    return `${this.#prefix}{${digest(bucket.principal)}}:${digest(bucket.key)}`;
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** Largest stored route read back. */
const MAX_ROUTE_BYTES = 64 * 1024;

/** Task routes in Redis: a task handed out through one instance is polled, updated, cancelled through any. */
export class RedisTaskRouteStore implements TaskRouteStore {
  readonly #redis: OwnedClient;
  readonly #prefix: string;

  constructor(options: RedisBackendOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}gateway:task:`;
  }

  async set(taskId: string, route: StoredTaskRoute, ttlMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    await shared(this.#redis.client.set(this.#prefix + taskId, JSON.stringify(route), 'PX', ttl));
  }

  async get(taskId: string): Promise<StoredTaskRoute | undefined> {
    const text = await shared(this.#redis.client.get(this.#prefix + taskId));
    return readTaskRoute(parseStored(text, MAX_ROUTE_BYTES));
  }

  async close(): Promise<void> {
    await release(this.#redis);
  }
}

export interface RedisGatewayBusOptions extends RedisBackendOptions {
  logger?: Logger;
}

/** The gateway instances' bus on Redis pub/sub. */
export class RedisGatewayBus implements GatewayBus {
  readonly instance = randomUUID();
  readonly #redis: OwnedClient;
  readonly #subscriber: RedisSubscriber;
  readonly #all: string;
  readonly #prefix: string;
  readonly #handlers = new Set<(message: string) => void>();
  readonly #stops: Array<() => void>;

  constructor(options: RedisGatewayBusOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}gateway:`;
    this.#all = `${this.#prefix}all`;
    this.#subscriber = new RedisSubscriber(this.#redis.client, options.logger ?? silentLogger);
    const deliver = (message: string) => {
      for (const handler of [...this.#handlers]) handler(message);
    };
    this.#stops = [this.#all, this.#own].map((channel) => this.#subscriber.on(channel, deliver));
  }

  /** Resolves once this instance hears broadcasts and messages sent to it. */
  async ready(): Promise<void> {
    await Promise.all([this.#subscriber.ready(this.#all), this.#subscriber.ready(this.#own)]);
  }

  broadcast(message: string): Promise<number> {
    return shared(this.#redis.client.publish(this.#all, message));
  }

  async send(instance: string, message: string): Promise<void> {
    await shared(this.#redis.client.publish(`${this.#prefix}to:${instance}`, message));
  }

  subscribe(handler: (message: string) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  async close(): Promise<void> {
    for (const stop of this.#stops) stop();
    await this.#subscriber.close();
    await release(this.#redis);
  }

  get #own(): string {
    return `${this.#prefix}to:${this.instance}`;
  }
}
