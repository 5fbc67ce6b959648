/**
 * The TaskStore over Redis, so a task created through one instance is polled, answered and cancelled through
 * any other. Each task is a hash `<prefix>task:<id>` (the record, a version, the instance running it) that
 * expires with the task (PEXPIREAT createdAt + ttlMs). Every change is a compare-and-set on the version in one
 * script, which also publishes the new record on the task's channel: the instance running the task learns of
 * tasks/update answers and tasks/cancel wherever they landed, in the order they were written.
 *
 * The instance running a task holds a lease `<prefix>instance:<id>` it renews while it lives. A task still
 * working whose instance's lease has lapsed (the process was killed) is marked failed the next time anyone
 * reads it, rather than polled forever. The other way round, a task that expired in Redis while its handler
 * still runs here is noticed at the next renewal, and the handler is told as the in-memory store tells it (a
 * record with `cancelRequested`: its signal aborts) instead of running on with nobody to read its result.
 */
import { randomUUID } from 'node:crypto';
import type { TaskChange, TaskListener, TaskStore } from '../extensions/tasks/store.js';
import { type TaskRecord, isTerminal } from '../extensions/tasks/wire.js';
import { type Logger, silentLogger } from '../util/logger.js';
import {
  type OwnedClient,
  type RedisBackendOptions,
  keyPrefix,
  parseStored,
  redisClient,
  release,
  SharedStateError,
  shared,
} from './connection.js';
import { RedisSubscriber } from './subscriber.js';

export interface RedisTaskStoreOptions extends RedisBackendOptions {
  /** How long an instance's lease lasts without renewal (default 10 s); renewed every third of it. */
  leaseMs?: number;
  /**
   * How long Redis keeps a task created with no TTL (`ttlMs: null`) after its last change (default 24 h):
   * Redis memory stays bounded whatever the clients ask for.
   */
  retentionMs?: number;
  /** Compare-and-set attempts for one update under contention before it gives up (default 64). */
  maxAttempts?: number;
  logger?: Logger;
}

/** KEYS[1] = task; ARGV = expected version, record, new version, expiry (epoch ms, '' for none), channel. */
const COMPARE_AND_SET = `
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', ARGV[3])
if ARGV[4] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) end
redis.call('PUBLISH', ARGV[5], ARGV[2])
return 1`;

/** KEYS[1] = task; ARGV = record, owner instance, expiry (epoch ms, '' for none). */
const CREATE = `
if redis.call('HSETNX', KEYS[1], 'r', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'v', '1', 'o', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return 1`;

interface TaskScripts {
  agentforgeTaskSet(key: string, ...args: string[]): Promise<number>;
  agentforgeTaskCreate(key: string, ...args: string[]): Promise<number>;
}

const MAX_RECORD_BYTES = 4 * 1024 * 1024;
const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** A stored record, checked: another process wrote it. */
function readRecord(text: string | null | undefined): TaskRecord | undefined {
  const value = parseStored(text, MAX_RECORD_BYTES);
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.taskId !== 'string' || typeof record.principal !== 'string') return undefined;
  if (typeof record.status !== 'string' || !STATUSES.has(record.status)) return undefined;
  if (typeof record.createdAt !== 'number' || typeof record.lastUpdatedAt !== 'number') return undefined;
  if (record.ttlMs !== null && typeof record.ttlMs !== 'number') return undefined;
  return value as TaskRecord;
}

function expiryOf(record: TaskRecord, retentionMs: number): string {
  return String(record.ttlMs === null ? record.lastUpdatedAt + retentionMs : record.createdAt + record.ttlMs);
}

export class RedisTaskStore implements TaskStore {
  readonly #redis: OwnedClient;
  readonly #subscriber: RedisSubscriber;
  readonly #prefix: string;
  readonly #instance = randomUUID();
  readonly #leaseMs: number;
  readonly #maxAttempts: number;
  readonly #retentionMs: number;
  readonly #logger: Logger;
  readonly #renewal: ReturnType<typeof setInterval>;
  /** Tasks created here whose handler listens (subscribed), with their listeners: checked for expiry. */
  readonly #running = new Map<string, { record: TaskRecord; listeners: Set<TaskListener> }>();
  /** Listeners subscribed before their task is created (a handler subscribes first). */
  readonly #listeners = new Map<string, Set<TaskListener>>();

  constructor(options: RedisTaskStoreOptions = {}) {
    this.#redis = redisClient(options.redis);
    this.#prefix = keyPrefix(options);
    this.#logger = options.logger ?? silentLogger;
    this.#leaseMs = Math.max(100, options.leaseMs ?? 10_000);
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 64);
    this.#retentionMs = Math.max(1000, options.retentionMs ?? 24 * 3_600_000);
    this.#subscriber = new RedisSubscriber(this.#redis.client, this.#logger);
    this.#redis.client.defineCommand('agentforgeTaskSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
    this.#redis.client.defineCommand('agentforgeTaskCreate', { numberOfKeys: 1, lua: CREATE });
    this.#renew();
    this.#renewal = setInterval(() => this.#renew(), Math.floor(this.#leaseMs / 3));
    this.#renewal.unref?.();
  }

  create(record: TaskRecord): Promise<void> {
    return shared(this.#create(record));
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return shared(this.#get(taskId));
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return shared(this.#update(taskId, change));
  }

  async #create(record: TaskRecord): Promise<void> {
    await this.#subscriber.ready(this.#channel(record.taskId));
    const created = await this.#scripts.agentforgeTaskCreate(
      this.#key(record.taskId),
      JSON.stringify(record),
      this.#instance,
      expiryOf(record, this.#retentionMs),
    );
    if (created !== 1) throw new SharedStateError(`task ${record.taskId} already exists`);
    const listeners = this.#listeners.get(record.taskId);
    if (listeners) this.#running.set(record.taskId, { record, listeners });
  }

  async #get(taskId: string): Promise<TaskRecord | undefined> {
    const stored = await this.#read(taskId);
    if (!stored) return undefined;
    return (await this.#failIfOrphaned(taskId, stored)) ?? stored.record;
  }

  async #update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < this.#maxAttempts; attempt++) {
      const stored = await this.#read(taskId);
      if (!stored) return undefined;
      const next = change(stored.record);
      if (next === stored.record) return stored.record;
      if (await this.#compareAndSet(taskId, stored.version, next)) return next;
      // Another writer won the round: back off a random few milliseconds so the losers spread out.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * (attempt + 1))));
    }
    throw new SharedStateError(`task ${taskId}: too many concurrent updates`);
  }

  subscribe(taskId: string, listener: TaskListener): () => void {
    let listeners = this.#listeners.get(taskId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(taskId, listeners);
    }
    listeners.add(listener);
    const stop = this.#subscriber.on(this.#channel(taskId), (message) => {
      const record = readRecord(message);
      if (record && record.taskId === taskId) listener(record);
    });
    const set = listeners;
    return () => {
      stop();
      set.delete(listener);
      if (set.size > 0 || this.#listeners.get(taskId) !== set) return;
      this.#listeners.delete(taskId);
      this.#running.delete(taskId);
    };
  }

  /** Redis expires tasks itself (PEXPIREAT): nothing to sweep. */
  async expire(): Promise<string[]> {
    return [];
  }

  /** Gives up this instance's lease (its tasks fail on the next read) and closes the connections it made. */
  async close(): Promise<void> {
    clearInterval(this.#renewal);
    await this.#redis.client.del(this.#leaseKey(this.#instance)).catch(() => 0);
    await this.#subscriber.close();
    await release(this.#redis);
  }

  async #read(taskId: string) {
    const [text, version, owner] = await this.#redis.client.hmget(this.#key(taskId), 'r', 'v', 'o');
    const record = readRecord(text);
    if (!record || record.taskId !== taskId || typeof version !== 'string') return undefined;
    return { record, version, owner };
  }

  async #compareAndSet(taskId: string, version: string, next: TaskRecord): Promise<boolean> {
    const written = await this.#scripts.agentforgeTaskSet(
      this.#key(taskId),
      version,
      JSON.stringify(next),
      String(Number(version) + 1),
      expiryOf(next, this.#retentionMs),
      this.#channel(taskId),
    );
    return written === 1;
  }

  /** A live task whose instance's lease lapsed: failed now, so pollers learn it will never finish. */
  async #failIfOrphaned(
    taskId: string,
    stored: { record: TaskRecord; owner: string | null | undefined },
  ): Promise<TaskRecord | undefined> {
    const { record, owner } = stored;
    if (isTerminal(record.status) || !owner || owner === this.#instance) return undefined;
    // A Redis restarted without the lease (no persistence) has it back within a renewal; only a task quiet for
    // a whole lease as well is judged.
    if (Date.now() - record.lastUpdatedAt < this.#leaseMs) return undefined;
    if ((await this.#redis.client.exists(this.#leaseKey(owner))) === 1) return undefined;
    const message = 'the server instance running this task stopped';
    this.#logger.warn(`task ${taskId}: ${message}`);
    return this.#update(taskId, (current) =>
      isTerminal(current.status)
        ? current
        : {
            ...current,
            status: 'failed',
            statusMessage: message,
            error: { code: -32603, message },
            lastUpdatedAt: Date.now(),
            inputRequests: undefined,
          },
    );
  }

  /** The scripts defined on the client (ioredis adds them as methods, typed here). */
  get #scripts(): TaskScripts {
    return this.#redis.client as unknown as TaskScripts;
  }

  #renew(): void {
    this.#redis.client
      .set(this.#leaseKey(this.#instance), '1', 'PX', this.#leaseMs)
      .catch((error: unknown) => this.#logger.debug('task lease not renewed', error));
    if (this.#running.size > 0) void this.#checkRunning();
  }

  /** Tasks running here that Redis no longer has (expired): their handlers learn it, as from a cancel. */
  async #checkRunning(): Promise<void> {
    const ids = [...this.#running.keys()];
    const pipeline = this.#redis.client.pipeline();
    for (const id of ids) pipeline.exists(this.#key(id));
    const answers = await pipeline.exec().catch(() => null);
    for (const [index, id] of ids.entries()) {
      const [error, exists] = answers?.[index] ?? [new Error('no answer')];
      if (error || exists !== 0) continue;
      const running = this.#running.get(id);
      if (!running) continue;
      this.#running.delete(id);
      this.#logger.warn(`task ${id}: expired while its handler ran; the handler is cancelled`);
      const gone: TaskRecord = { ...running.record, cancelRequested: true, ttlMs: 0 };
      for (const listener of [...running.listeners]) {
        try {
          listener(gone);
        } catch {
          // One failing listener must not keep the news from the others.
        }
      }
    }
  }

  #key(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  #channel(taskId: string): string {
    return `${this.#prefix}task-changes:${taskId}`;
  }

  #leaseKey(instance: string): string {
    return `${this.#prefix}instance:${instance}`;
  }
}
