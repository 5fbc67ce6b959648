/**
 * The gateway's response cache on a real redis-server: two gateway instances (real HTTP, bearer auth) in front of
 * one upstream whose reads count themselves share the cache (a read through A, then through B, reaches the
 * upstream once; a private read is shared by one principal's requests only), keys are namespaced and hashed with
 * the upstream's ttlMs as their PX, a stored value that is not ours is a miss, an oversized one is not stored,
 * and with Redis down every read is served from the upstream with a warning.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth } from '../../src/auth/server/bearer.js';
import { InvalidTokenError, type TokenVerifier } from '../../src/auth/server/types.js';
import type { McpClient } from '../../src/client/client.js';
import { RedisResponseCache } from '../../src/redis/response-cache.js';
import type { Listening } from '../../src/server/http.js';
import { McpServer } from '../../src/server/server.js';
import type { Logger } from '../../src/util/logger.js';
import { type Running, startGateway } from '../gateway/support.js';
import { NO_REDIS, REDIS_SERVER, type RedisProcess, startRedis, stopAll } from './harness.js';

if (!REDIS_SERVER) console.warn(`skipping test/redis/response-cache.test.ts: ${NO_REDIS}`);

const PREFIX = 'rc:';
const reads = new Map<string, number>();
const warnings: string[] = [];
let redis: RedisProcess;
let upstream: Listening;
let inspect: Redis;
let a: Running;
let b: Running;
const caches: RedisResponseCache[] = [];
const clients: Redis[] = [];

function countingUpstream(): McpServer {
  const server = new McpServer(
    { name: 'counting', version: '1.0.0' },
    { cache: { ttlMs: 0, cacheScope: 'public' } },
  );
  const resource = (
    name: string,
    cacheScope: 'public' | 'private',
    text = (n: number) => `${name} read ${n}`,
  ) =>
    server.registerResource(name, `count://${name}`, { ttlMs: 60_000, cacheScope }, (uri) => {
      const n = (reads.get(name) ?? 0) + 1;
      reads.set(name, n);
      return { contents: [{ uri, mimeType: 'text/plain', text: text(n) }] };
    });
  resource('public', 'public');
  resource('private', 'private');
  resource('big', 'public', (n) => `${'x'.repeat(4096)} ${n}`);
  return server;
}

/** Tokens named after their principal. */
const verifier: TokenVerifier = {
  async verify(raw) {
    if (!['alice', 'bob'].includes(raw)) throw new InvalidTokenError('unknown token');
    return {
      subject: raw,
      issuer: 'test',
      clientId: undefined,
      scopes: [],
      expiresAt: undefined,
      claims: {},
    };
  },
};

async function gatewayInstance(): Promise<Running> {
  const client = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  await client.ping();
  clients.push(client);
  const cache = new RedisResponseCache({ redis: client, prefix: PREFIX, maxValueBytes: 2048 });
  caches.push(cache);
  const logger: Logger = { debug() {}, error() {}, warn: (message) => warnings.push(message) };
  return startGateway(
    { up: { url: upstream.url } },
    { shared: { responseCache: cache }, logger },
    { auth: (url) => bearerAuth({ resource: url, authorizationServers: ['https://issuer.test'], verifier }) },
  );
}

const as = (running: Running, principal: string): Promise<McpClient> =>
  running.connect({ cache: false, headers: { authorization: `Bearer ${principal}` } });

const read = async (client: McpClient, uri: string) =>
  ((await client.readResource({ uri })).contents[0] as { text: string }).text;

describe.skipIf(!REDIS_SERVER)('the response cache shared through Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
    upstream = await countingUpstream().listen();
    inspect = new Redis({ port: redis.port, host: '127.0.0.1' });
    inspect.on('error', () => {});
    [a, b] = await Promise.all([gatewayInstance(), gatewayInstance()]);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([a, b].map((running) => running?.[Symbol.asyncDispose]()));
    await Promise.allSettled(caches.map((cache) => cache.close()));
    for (const client of [...clients, inspect]) client?.disconnect();
    await upstream?.close();
    await stopAll();
  });

  it('a public read through A is served through B: the upstream is read once', async () => {
    expect(await read(await as(a, 'alice'), 'up+count://public')).toBe('public read 1');
    expect(await read(await as(b, 'bob'), 'up+count://public')).toBe('public read 1');
    expect(reads.get('public')).toBe(1);
    const keys = await inspect.keys(`${PREFIX}gateway:cache:*`);
    expect(keys).toHaveLength(1);
    // Hashed: neither the URI nor a principal appears in Redis's key space.
    expect(keys[0]).toMatch(/^rc:gateway:cache:[A-Za-z0-9_-]{43}$/);
    const pttl = await inspect.pttl(keys[0] as string);
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it("a private read is shared by one principal's requests on every instance, never with another", async () => {
    expect(await read(await as(a, 'alice'), 'up+count://private')).toBe('private read 1');
    expect(await read(await as(b, 'alice'), 'up+count://private')).toBe('private read 1');
    expect(await read(await as(b, 'bob'), 'up+count://private')).toBe('private read 2');
    expect(await read(await as(a, 'bob'), 'up+count://private')).toBe('private read 2');
    expect(reads.get('private')).toBe(2);
  });

  it('a stored value that is not a cached read is a miss; a value over the size cap is not stored', async () => {
    const before = await inspect.keys(`${PREFIX}gateway:cache:*`);
    for (const key of before)
      await inspect.set(key, '{"scope":"public","result":{"contents":"no"}}', 'PX', 60_000);
    expect(await read(await as(b, 'alice'), 'up+count://public')).toBe('public read 2');
    expect(reads.get('public')).toBe(2);
    expect((await read(await as(a, 'alice'), 'up+count://big')).endsWith(' 1')).toBe(true);
    expect((await read(await as(b, 'alice'), 'up+count://big')).endsWith(' 2')).toBe(true);
    expect(await inspect.keys(`${PREFIX}gateway:cache:*`)).toHaveLength(before.length);
  });

  it('a client not connected yet (lazyConnect) connects on first use rather than missing', async () => {
    const lazy = new Redis({ port: redis.port, host: '127.0.0.1', lazyConnect: true });
    clients.push(lazy);
    const cache = new RedisResponseCache({ redis: lazy, prefix: PREFIX });
    await cache.set('lazy', 'value', 5000);
    const hit = await cache.get('lazy');
    expect(hit?.value).toBe('value');
    expect(hit?.ttlMs).toBeGreaterThan(4000);
  });

  it('Redis down: reads are served from the upstream, with a warning', async () => {
    const client = await as(a, 'alice');
    expect(await read(client, 'up+count://public')).toBe('public read 2');
    await redis.stop();
    const before = reads.get('public') ?? 0;
    expect(await read(client, 'up+count://public')).toBe(`public read ${before + 1}`);
    expect(await read(await as(b, 'bob'), 'up+count://public')).toBe(`public read ${before + 2}`);
    expect(warnings.filter((warning) => warning.includes('response cache unavailable'))).toHaveLength(2);
  }, 30_000);
});
