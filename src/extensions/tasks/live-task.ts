/**
 * One tools/call that may become a task (SEP-2663 Task Creation). It starts as an ordinary call answering its
 * request; on `detach` (the handler asks, or it outlives the server's immediate-result window) the task is
 * durably created, the request is answered with CreateTaskResult and the same handler goes on: its input requests
 * become the task's `inputRequests`, its signal is the task's cancellation, and its outcome the task's result.
 */
import { randomBytes } from 'node:crypto';
import { RpcError } from '../../jsonrpc/errors.js';
import { McpErrorCode } from '../../mcp/errors.js';
import type { InputRequests, InputResponse, JSONObject } from '../../mcp/types.js';
import type { TaskContext } from '../../server/types.js';
import type { TaskStore } from './store.js';
import { type TaskError, type TaskRecord, isTerminal } from './wire.js';

export interface LiveTaskOptions {
  readonly store: TaskStore;
  readonly principal: string;
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number | undefined;
}

type Phase = 'request' | 'detaching' | 'task' | 'inline';

interface Waiter {
  resolve(answer: InputResponse): void;
  reject(error: unknown): void;
}

/** 128 random bits, URL-safe: task ids are bearer-like and must not be guessable (SEP-2663 Security). */
export function newTaskId(): string {
  return randomBytes(16).toString('base64url');
}

function abortError(reason: string): Error {
  const error = new Error(reason);
  error.name = 'AbortError';
  return error;
}

/** A protocol error as a failed task carries it; anything else is an internal error (no details leak). */
export function taskErrorOf(error: unknown): TaskError {
  if (error instanceof RpcError) {
    const wire: TaskError = { code: error.code, message: error.message };
    if (error.data !== undefined) wire.data = error.data;
    return wire;
  }
  return { code: McpErrorCode.InternalError, message: 'Internal error' };
}

export class LiveTask implements TaskContext {
  readonly controller = new AbortController();
  readonly #options: LiveTaskOptions;
  #phase: Phase = 'request';
  #taskId: string | undefined;
  #created: Promise<TaskRecord> | undefined;
  #onDetach: ((created: Promise<TaskRecord>) => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #waiters = new Map<string, Waiter>();
  readonly #usedKeys = new Set<string>();

  constructor(options: LiveTaskOptions) {
    this.#options = options;
  }

  get taskId(): string | undefined {
    return this.#taskId;
  }

  /** True once the call answers as a task (or is about to): input and notifications go to the task. */
  get detached(): boolean {
    return this.#phase === 'detaching' || this.#phase === 'task';
  }

  /** The hook that answers the request once the task exists (at once if the handler detached already). */
  onDetach(listener: (created: Promise<TaskRecord>) => void): void {
    this.#onDetach = listener;
    if (this.#created) listener(this.#created);
  }

  detach(): Promise<string> {
    if (this.#phase === 'inline') return Promise.reject(new Error('this call runs inline: no task'));
    if (!this.#created) {
      this.#phase = 'detaching';
      this.#created = this.#create();
      this.#onDetach?.(this.#created);
    }
    return this.#created.then((record) => record.taskId);
  }

  /** The store refused the task (full): the call goes on answering its own request. */
  runInline(): void {
    this.#phase = 'inline';
    this.#taskId = undefined;
  }

  async status(message: string): Promise<void> {
    const taskId = this.#taskId;
    if (!taskId) return;
    await this.#options.store.update(taskId, (record) =>
      isTerminal(record.status) ? record : { ...record, statusMessage: message, lastUpdatedAt: Date.now() },
    );
  }

  /** Asks the client through the task: status input_required until every key is answered by tasks/update. */
  async ask(requests: InputRequests): Promise<Record<string, InputResponse>> {
    const record = await this.#created;
    if (!record) throw new Error('input through a task needs a task');
    const keys = Object.keys(requests);
    const wire: InputRequests = {};
    const wireKeys = keys.map((key) => {
      // SEP-2663: a key is unique over the task's lifetime; a handler's reused key gets a fresh wire key.
      let wireKey = key;
      for (let n = 2; this.#usedKeys.has(wireKey); n++) wireKey = `${key}-${n}`;
      this.#usedKeys.add(wireKey);
      wire[wireKey] = requests[key] as InputRequests[string];
      return wireKey;
    });
    const answers = wireKeys.map(
      (wireKey) =>
        new Promise<InputResponse>((resolve, reject) => this.#waiters.set(wireKey, { resolve, reject })),
    );
    if (this.controller.signal.aborted) this.#rejectWaiters();
    await this.#options.store.update(record.taskId, (current) =>
      isTerminal(current.status)
        ? current
        : {
            ...current,
            status: 'input_required',
            inputRequests: { ...(current.inputRequests ?? {}), ...wire },
            lastUpdatedAt: Date.now(),
          },
    );
    const values = await Promise.all(answers);
    return Object.fromEntries(keys.map((key, index) => [key, values[index] as InputResponse]));
  }

  /** The handler returned: the task completes (tool errors included), unless it was cancelled meanwhile. */
  async complete(result: JSONObject): Promise<void> {
    const { resultType: _resultType, ...rest } = result;
    await this.#settle((record) =>
      record.cancelRequested
        ? { ...record, status: 'cancelled' }
        : { ...record, status: 'completed', result: rest as JSONObject },
    );
  }

  /** The handler threw a protocol error: the task fails with it, unless it was cancelled meanwhile. */
  async fail(error: unknown): Promise<void> {
    await this.#settle((record) =>
      record.cancelRequested || this.controller.signal.aborted
        ? { ...record, status: 'cancelled' }
        : {
            ...record,
            status: 'failed',
            error: taskErrorOf(error),
            statusMessage: taskErrorOf(error).message,
          },
    );
  }

  /** Releases the store subscription (the call ended without a task, or the task is terminal). */
  dispose(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#rejectWaiters();
  }

  async #create(): Promise<TaskRecord> {
    const now = Date.now();
    const taskId = newTaskId();
    const record: TaskRecord = {
      taskId,
      principal: this.#options.principal,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#options.ttlMs,
      ...(this.#options.pollIntervalMs === undefined ? {} : { pollIntervalMs: this.#options.pollIntervalMs }),
    };
    // Subscribed before it is stored, so no tasks/update or tasks/cancel can slip between the two.
    this.#unsubscribe = this.#options.store.subscribe(taskId, (changed) => this.#changed(changed));
    try {
      await this.#options.store.create(record);
    } catch (error) {
      this.dispose();
      throw error;
    }
    this.#taskId = taskId;
    this.#phase = 'task';
    return record;
  }

  /** Answers and cancellation reach the handler through the store, whichever instance received them. */
  #changed(record: TaskRecord): void {
    if (record.cancelRequested && !this.controller.signal.aborted) {
      this.controller.abort(abortError('task cancelled'));
      this.#rejectWaiters();
      return;
    }
    const responses = record.inputResponses;
    if (!responses) return;
    const taken: string[] = [];
    for (const [key, answer] of Object.entries(responses)) {
      const waiter = this.#waiters.get(key);
      if (!waiter) continue;
      this.#waiters.delete(key);
      taken.push(key);
      waiter.resolve(answer);
    }
    if (taken.length === 0) return;
    void this.#options.store.update(record.taskId, (current) => {
      const left = { ...(current.inputResponses ?? {}) };
      for (const key of taken) delete left[key];
      return { ...current, inputResponses: left };
    });
  }

  #rejectWaiters(): void {
    for (const waiter of this.#waiters.values()) waiter.reject(abortError('task cancelled'));
    this.#waiters.clear();
  }

  async #settle(change: (record: TaskRecord) => TaskRecord): Promise<void> {
    const created = await this.#created?.catch(() => undefined);
    if (!created) return;
    await this.#options.store.update(created.taskId, (record) => {
      if (isTerminal(record.status)) return record;
      const { inputRequests: _i, inputResponses: _r, ...rest } = change(record);
      return { ...rest, lastUpdatedAt: Date.now() };
    });
    this.dispose();
  }
}
