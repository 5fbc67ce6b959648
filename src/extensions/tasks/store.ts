/**
 * Where tasks live. The interface is what a store shared by several server instances implements (a Redis store
 * later): every change goes through `update` as a read-modify-write, and the instance running a task learns of
 * tasks/update answers and tasks/cancel through `subscribe`, wherever those requests landed.
 */
import type { TaskRecord } from './wire.js';

/** A change to one record; returning the record unchanged writes nothing. */
export type TaskChange = (current: TaskRecord) => TaskRecord;

export type TaskListener = (record: TaskRecord) => void;

export interface TaskStore {
  /** Stores a new task. Resolves once a `get` for it would find it (SEP-2663: durably created). */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Applies `change` atomically; resolves to the new record, or undefined when the task is gone. */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Calls `listener` after every change to the task (not for the current state). Returns the unsubscribe. */
  subscribe(taskId: string, listener: TaskListener): () => void;
  /** Drops every task past `createdAt + ttlMs` at `now`; resolves to the ids dropped. */
  expire(now?: number): Promise<string[]>;
}

/** The store is full: the server runs the call inline instead of creating a task. */
export class TaskLimitError extends Error {
  constructor(limit: number) {
    super(`too many live tasks (limit ${limit})`);
    this.name = 'TaskLimitError';
  }
}

export interface InMemoryTaskStoreOptions {
  /** Tasks kept at once, terminal ones included until they expire (default 1000). */
  maxTasks?: number;
  /** How often expired tasks are swept (default 60 s; the timer does not keep the process alive). */
  sweepIntervalMs?: number;
}

function expired(record: TaskRecord, now: number): boolean {
  return record.ttlMs !== null && now >= record.createdAt + record.ttlMs;
}

/** The default store: one process's memory, a TTL per task and a cap on how many are kept. */
export class InMemoryTaskStore implements TaskStore {
  readonly #records = new Map<string, TaskRecord>();
  readonly #listeners = new Map<string, Set<TaskListener>>();
  readonly #maxTasks: number;
  readonly #sweep: ReturnType<typeof setInterval>;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#maxTasks = Math.max(1, Math.floor(options.maxTasks ?? 1000));
    const interval = Math.max(10, options.sweepIntervalMs ?? 60_000);
    this.#sweep = setInterval(() => void this.expire(), interval);
    this.#sweep.unref?.();
  }

  get size(): number {
    return this.#records.size;
  }

  async create(record: TaskRecord): Promise<void> {
    if (this.#records.has(record.taskId)) throw new Error(`task ${record.taskId} already exists`);
    if (this.#records.size >= this.#maxTasks) {
      await this.expire();
      if (this.#records.size >= this.#maxTasks) throw new TaskLimitError(this.#maxTasks);
    }
    this.#records.set(record.taskId, record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#live(taskId);
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    // Read, change and write with no await between: concurrent updates of one task never lose each other.
    const current = this.#live(taskId);
    if (!current) return undefined;
    const next = change(current);
    if (next === current) return current;
    this.#records.set(taskId, next);
    for (const listener of [...(this.#listeners.get(taskId) ?? [])]) {
      try {
        listener(next);
      } catch {
        // A failing listener must not stop the others or the writer.
      }
    }
    return next;
  }

  subscribe(taskId: string, listener: TaskListener): () => void {
    let listeners = this.#listeners.get(taskId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(taskId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(taskId) === listeners) this.#listeners.delete(taskId);
    };
  }

  async expire(now = Date.now()): Promise<string[]> {
    const dropped: string[] = [];
    for (const [taskId, record] of this.#records) {
      if (!expired(record, now)) continue;
      this.#drop(taskId);
      dropped.push(taskId);
    }
    return dropped;
  }

  /** Stops the sweep timer (tests; the timer is unref'd anyway). */
  close(): void {
    clearInterval(this.#sweep);
  }

  #live(taskId: string): TaskRecord | undefined {
    const record = this.#records.get(taskId);
    if (!record) return undefined;
    if (!expired(record, Date.now())) return record;
    this.#drop(taskId);
    return undefined;
  }

  #drop(taskId: string): void {
    const record = this.#records.get(taskId);
    this.#records.delete(taskId);
    // Subscribers (the running handler) learn the task is gone: a cancelled, expired record.
    if (record) {
      const gone: TaskRecord = { ...record, cancelRequested: true, ttlMs: 0 };
      for (const listener of [...(this.#listeners.get(taskId) ?? [])]) {
        try {
          listener(gone);
        } catch {
          // ignored, as in update
        }
      }
    }
    this.#listeners.delete(taskId);
  }
}
