/**
 * Handshake-era sessions and their SSE events in Redis. A session is a hash `<prefix>session:{<id>}` holding its
 * record, expiring after the idle timeout (PEXPIRE, pushed back while in use). Each SSE stream of a session is
 * a Redis Stream `<prefix>session:{<id>}:stream:<key>` whose entry ids are the event sequence numbers, trimmed with
 * `XADD ... MAXLEN ~ N` and expiring with the session, so `Last-Event-ID` resumes on any instance with one XRANGE
 * and Redis holds no more than the live sessions' recent events.
 */
import type {
  EventStore,
  SessionRecord,
  SessionRelay,
  SessionStore,
  StoredSessionEvent,
} from '../transports/http/server/session-store.js';
import { readSessionRecord } from '../transports/http/server/session-store.js';
import { type Logger, silentLogger } from '../util/logger.js';
import {
  type OwnedClient,
  type RedisBackendOptions,
  keyPrefix,
  parseStored,
  redisClient,
  release,
  SharedStateError,
} from './connection.js';
import { RedisSubscriber } from './subscriber.js';

/**
 * A session's keys carry its id as a hash tag (`{id}`): in a Redis Cluster the session and all its streams
 * sit in one slot, so the multi-key transactions here stay legal.
 */
function sessionKey(prefix: string, sessionId: string): string {
  return `${prefix}{${sessionId}}`;
}

/**
 * KEYS[1] = session; ARGV = expected version ('' when the session has none yet), record, ttl ms, channel.
 * Writes only when nobody changed the session since it was read; returns 1 when written.
 */
const COMPARE_AND_SET = `
local version = redis.call('HGET', KEYS[1], 'v')
if not version then version = '' end
if version ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'record') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], '1')
return 1`;

interface SessionScripts {
  agentforgeSessionSet(key: string, ...args: string[]): Promise<number>;
}

/** How long opening an HTTP+SSE stream waits for its relay channel to be subscribed. */
const RECEIVE_READY_MS = 2000;

/** Compare-and-set attempts of one change under contention before it gives up. */
const MAX_ATTEMPTS = 64;

/** Largest stored SSE message read back (a larger one was not written by agentforge). */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;
/** Events read back per resumption, at most (a stream keeps at most its MAXLEN anyway). */
const MAX_REPLAY = 10_000;

export interface RedisSessionStoreOptions extends RedisBackendOptions {
  logger?: Logger;
}

/**
 * Sessions as hashes with expiry and a version. A change (`set`, `update`) is published on the session's
 * channel, so every instance holding the session replays it (`watch`: one subscriber connection, opened on
 * first use); `update` is a compare-and-set on the version in one script, so two instances changing one
 * session at once (a subscribe through each) keep both changes.
 */
export class RedisSessionStore implements SessionStore, SessionRelay {
  readonly #redis: OwnedClient;
  readonly #prefix: string;
  readonly #logger: Logger;
  #subscriber: RedisSubscriber | undefined;

  constructor(options: RedisSessionStoreOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}session:`;
    this.#logger = options.logger ?? silentLogger;
    this.#redis.client.defineCommand('agentforgeSessionSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  }

  watch(sessionId: string, listener: () => void): () => void {
    this.#subscriber ??= new RedisSubscriber(this.#redis.client, this.#logger);
    return this.#subscriber.on(this.#channel(sessionId), () => listener());
  }

  /**
   * HTTP+SSE (2024-11-05) across instances (`sessionRelay`): a POST reaching an instance without the session's
   * stream is published on the session's message channel, which only the instance holding the stream listens
   * to; no listener (the session is gone) is a false.
   */
  async relay(sessionId: string, message: string): Promise<boolean> {
    return (await this.#redis.client.publish(this.#messages(sessionId), message)) > 0;
  }

  async receive(sessionId: string, handler: (message: string) => void): Promise<() => void> {
    this.#subscriber ??= new RedisSubscriber(this.#redis.client, this.#logger);
    const channel = this.#messages(sessionId);
    const stop = this.#subscriber.on(channel, handler);
    // Live before the client learns its endpoint; while Redis is away, the stream opens anyway after a while
    // (the subscription is made when Redis is back).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#subscriber.ready(channel),
      new Promise((resolve) => {
        timer = setTimeout(resolve, RECEIVE_READY_MS);
      }),
    ]);
    clearTimeout(timer);
    return stop;
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const text = await this.#redis.client.hget(this.#key(sessionId), 'record');
    return readSessionRecord(parseStored(text));
  }

  async set(sessionId: string, record: SessionRecord, ttlMs: number): Promise<void> {
    const key = this.#key(sessionId);
    await this.#redis.client
      .multi()
      .hset(key, 'record', JSON.stringify(record))
      .hincrby(key, 'v', 1)
      .pexpire(key, Math.max(1, Math.ceil(ttlMs)))
      .publish(this.#channel(sessionId), '1')
      .exec();
  }

  async update(
    sessionId: string,
    change: (record: SessionRecord) => SessionRecord,
    ttlMs: number,
  ): Promise<SessionRecord | undefined> {
    const key = this.#key(sessionId);
    const scripts = this.#redis.client as unknown as SessionScripts;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const [text, version] = await this.#redis.client.hmget(key, 'record', 'v');
      const current = readSessionRecord(parseStored(text));
      if (!current) return undefined;
      const next = change(current);
      if (next === current) return current;
      const ttl = String(Math.max(1, Math.ceil(ttlMs)));
      const args = [version ?? '', JSON.stringify(next), ttl, this.#channel(sessionId)];
      if ((await scripts.agentforgeSessionSet(key, ...args)) === 1) return next;
      // Another instance changed the session meanwhile: read it again, spread out from the other writers.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * (attempt + 1))));
    }
    throw new SharedStateError(`session ${sessionId}: too many concurrent changes`);
  }

  async touch(sessionId: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.client.pexpire(this.#key(sessionId), Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async delete(sessionId: string): Promise<void> {
    await this.#redis.client.del(this.#key(sessionId));
  }

  async close(): Promise<void> {
    await this.#subscriber?.close();
    await release(this.#redis);
  }

  #channel(sessionId: string): string {
    return `${this.#key(sessionId)}:changes`;
  }

  #messages(sessionId: string): string {
    return `${this.#key(sessionId)}:messages`;
  }

  #key(sessionId: string): string {
    return sessionKey(this.#prefix, sessionId);
  }
}

export class RedisEventStore implements EventStore {
  readonly #redis: OwnedClient;
  readonly #prefix: string;

  constructor(options: RedisBackendOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = `${keyPrefix(options)}session:`;
  }

  async append(
    sessionId: string,
    streamKey: string,
    event: StoredSessionEvent,
    limits: { maxEvents: number; ttlMs: number },
  ): Promise<void> {
    const stream = this.#streamKey(sessionId, streamKey);
    const index = this.#indexKey(sessionId);
    const ttl = Math.max(1, Math.ceil(limits.ttlMs));
    // One round trip: the event, the trim, the stream's expiry, and the session's list of streams (for DELETE).
    const [failure] =
      (await this.#redis.client
        .multi()
        .xadd(stream, 'MAXLEN', '~', limits.maxEvents, `${event.seq}-1`, 'm', event.message)
        .pexpire(stream, ttl)
        .sadd(index, streamKey)
        .pexpire(index, ttl)
        .exec()) ?? [];
    if (failure?.[0]) throw failure[0];
  }

  async replay(sessionId: string, streamKey: string, afterSeq: number): Promise<StoredSessionEvent[]> {
    const entries = await this.#redis.client.xrange(
      this.#streamKey(sessionId, streamKey),
      `(${Math.max(0, Math.floor(afterSeq))}-1`,
      '+',
      'COUNT',
      MAX_REPLAY,
    );
    const events: StoredSessionEvent[] = [];
    for (const [id, fields] of entries) {
      const seq = Number(id.slice(0, id.indexOf('-')));
      const message = fields[0] === 'm' ? fields[1] : undefined;
      if (!Number.isSafeInteger(seq) || typeof message !== 'string' || message.length > MAX_EVENT_BYTES)
        continue;
      events.push({ seq, message });
    }
    return events;
  }

  async deleteSession(sessionId: string): Promise<void> {
    const index = this.#indexKey(sessionId);
    const keys = await this.#redis.client.smembers(index);
    const names = keys.slice(0, MAX_REPLAY).map((key) => this.#streamKey(sessionId, key));
    await this.#redis.client.del(index, ...names);
  }

  async close(): Promise<void> {
    await release(this.#redis);
  }

  #streamKey(sessionId: string, streamKey: string): string {
    return `${sessionKey(this.#prefix, sessionId)}:stream:${streamKey}`;
  }

  #indexKey(sessionId: string): string {
    return `${sessionKey(this.#prefix, sessionId)}:streams`;
  }
}
