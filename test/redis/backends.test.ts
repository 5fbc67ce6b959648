/**
 * The Redis backends one by one against a real redis-server: what they keep, for how long (expiry and MAXLEN
 * bound Redis's memory), concurrent writers, hostile stored bytes, and an outage turning into a clear error on
 * the operations that need Redis while the bus keeps serving this process.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../src/extensions/tasks/wire.js';
import type { SessionRecord } from '../../src/transports/http/server/session-store.js';
import {
  RedisEventBus,
  RedisEventStore,
  RedisOneTimeStateStore,
  RedisSessionStore,
  RedisTaskStore,
  SharedStateUnavailableError,
} from '../../src/redis/index.js';
import type { ServerEvent } from '../../src/server/event-bus.js';
import { NO_REDIS, REDIS_SERVER, type RedisProcess, startRedis, stopAll, until } from './harness.js';

let redis: RedisProcess;
let inspect: Redis;
const closers: Array<{ close(): Promise<void> }> = [];

function track<T extends { close(): Promise<void> }>(backend: T): T {
  closers.push(backend);
  return backend;
}

function record(taskId: string): TaskRecord {
  const now = Date.now();
  return { taskId, principal: 'p', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000 };
}

if (!REDIS_SERVER) console.warn(`skipping test/redis/backends.test.ts: ${NO_REDIS}`);

describe.skipIf(!REDIS_SERVER)('Redis backends', () => {
  beforeAll(async () => {
    redis = await startRedis();
    inspect = new Redis({ port: redis.port, host: '127.0.0.1' });
    inspect.on('error', () => {});
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled(closers.map((backend) => backend.close()));
    inspect?.disconnect();
    await stopAll();
  });

  const options = () => ({ redis: { port: redis.port, host: '127.0.0.1' } });

  it('the event store keeps a stream trimmed (MAXLEN ~) and expiring, and replays after an id', async () => {
    const events = track(new RedisEventStore(options()));
    for (let seq = 1; seq <= 1000; seq++) {
      await events.append('s1', 'gx', { seq, message: `{"n":${seq}}` }, { maxEvents: 50, ttlMs: 5000 });
    }
    const key = 'agentforge:session:{s1}:stream:gx';
    const length = await inspect.xlen(key);
    expect(length).toBeGreaterThanOrEqual(50);
    expect(length).toBeLessThanOrEqual(150);
    const ttl = await inspect.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
    const tail = await events.replay('s1', 'gx', 995);
    expect(tail).toEqual([996, 997, 998, 999, 1000].map((seq) => ({ seq, message: `{"n":${seq}}` })));
    expect(await events.replay('s1', 'unknown', 0)).toEqual([]);
    await events.deleteSession('s1');
    expect(await inspect.exists(key, 'agentforge:session:{s1}:streams')).toBe(0);
  });

  it('the session store expires, extends on touch, and ignores what it did not write', async () => {
    const sessions = track(new RedisSessionStore(options()));
    const session = { protocolVersion: '2025-11-25', clientCapabilities: { roots: {} }, principal: 'ann' };
    await sessions.set('abc', session, 300);
    expect(await sessions.get('abc')).toEqual(session);
    await sessions.touch('abc', 10_000);
    expect(await inspect.pttl('agentforge:session:{abc}')).toBeGreaterThan(5000);
    await sessions.set('short', session, 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await sessions.get('short')).toBeUndefined();
    await inspect.hset('agentforge:session:{forged}', 'record', '{"protocolVersion":1}');
    await inspect.hset('agentforge:session:{garbage}', 'record', 'not json');
    expect(await sessions.get('forged')).toBeUndefined();
    expect(await sessions.get('garbage')).toBeUndefined();
    await sessions.delete('abc');
    expect(await sessions.get('abc')).toBeUndefined();
  });

  it('session changes made through two instances at once never lose each other (compare-and-set)', async () => {
    const [one, two] = [track(new RedisSessionStore(options())), track(new RedisSessionStore(options()))];
    await one.set('busy', { protocolVersion: '2025-11-25', clientCapabilities: {} }, 60_000);
    const subscribe = (uri: string) => (record: SessionRecord) => ({
      ...record,
      resourceSubscriptions: [...(record.resourceSubscriptions ?? []), uri],
    });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? one : two).update('busy', subscribe(`file:///${i}`), 60_000),
      ),
    );
    const stored = await two.get('busy');
    expect([...(stored?.resourceSubscriptions ?? [])].sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `file:///${i}`).sort(),
    );
    expect(await one.update('gone', subscribe('file:///x'), 60_000)).toBeUndefined();
    expect(await inspect.exists('agentforge:session:{gone}')).toBe(0);
  });

  it('a one-time state is claimed once, and the claim expires with the state', async () => {
    const first = track(new RedisOneTimeStateStore(options()));
    const second = track(new RedisOneTimeStateStore(options()));
    const expiresAt = Date.now() + 2000;
    expect(await first.claim('nonce-1', expiresAt)).toBe(true);
    expect(await second.claim('nonce-1', expiresAt)).toBe(false);
    const ttl = await inspect.pttl('agentforge:state:nonce-1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
  });

  it('task updates from two instances never lose each other, and reach the other instance', async () => {
    const one = track(new RedisTaskStore(options()));
    const two = track(new RedisTaskStore(options()));
    const seen: string[] = [];
    const stop = one.subscribe('t1', (changed) => seen.push(changed.statusMessage ?? ''));
    await one.create(record('t1'));
    await expect(two.create(record('t1'))).rejects.toThrow('already exists');
    const bump = (store: RedisTaskStore) =>
      store.update('t1', (current) => ({
        ...current,
        statusMessage: String(Number(current.statusMessage ?? '0') + 1),
      }));
    await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 ? one : two)));
    expect((await two.get('t1'))?.statusMessage).toBe('20');
    for (let i = 0; i < 100 && seen.length < 20; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.map(Number).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    stop();
    const ttl = await inspect.pttl('agentforge:task:t1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await inspect.hset('agentforge:task:forged', 'r', '{"taskId":"forged","status":"done"}', 'v', '1');
    expect(await one.get('forged')).toBeUndefined();
  });

  it('a task expiring in Redis is reported to the handler subscribed here, a live one is not', async () => {
    const store = track(new RedisTaskStore({ ...options(), leaseMs: 300 }));
    const heard: TaskRecord[] = [];
    store.subscribe('expiring', (changed) => heard.push(changed));
    store.subscribe('lasting', (changed) => heard.push(changed));
    await store.create({ ...record('expiring'), ttlMs: 150 });
    await store.create(record('lasting'));
    await until(async () => (heard.length > 0 ? true : undefined), { timeoutMs: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(heard).toEqual([expect.objectContaining({ taskId: 'expiring', cancelRequested: true })]);
    expect(await store.get('expiring')).toBeUndefined();
    expect(await store.get('lasting')).toMatchObject({ status: 'working' });
  });

  it('a Redis outage: clear errors where Redis is needed, local delivery goes on, then recovery', async () => {
    const bus = track(new RedisEventBus(options()));
    await bus.ready();
    const states = track(new RedisOneTimeStateStore(options()));
    const tasks = track(new RedisTaskStore(options()));
    const local: ServerEvent[] = [];
    bus.subscribe((event) => local.push(event));
    await redis.stop();
    const started = Date.now();
    await expect(states.claim('during-outage', Date.now() + 1000)).rejects.toBeInstanceOf(
      SharedStateUnavailableError,
    );
    await expect(tasks.get('t1')).rejects.toThrow('Shared state unavailable');
    expect(Date.now() - started).toBeLessThan(8000);
    bus.publish({ type: 'resourceUpdated', uri: 'file:///local' });
    expect(local).toEqual([{ type: 'resourceUpdated', uri: 'file:///local' }]);
    await redis.restart();
    const claimed = async (): Promise<boolean> => {
      for (let i = 0; i < 100; i++) {
        const fresh = await states.claim('after-outage', Date.now() + 1000).catch(() => undefined);
        if (fresh !== undefined) return fresh;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return false;
    };
    expect(await claimed()).toBe(true);
  }, 30_000);
});
