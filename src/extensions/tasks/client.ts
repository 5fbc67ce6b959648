/**
 * The tasks extension on the client (SEP-2663): `callTool` returns a task-backed tool's result as if it were
 * synchronous (polling tasks/get with a backoff that never polls faster than the server's `pollIntervalMs`),
 * answers the task's `inputRequests` with the same handlers MRTR uses, and turns an AbortSignal into
 * tasks/cancel. `start` hands back the task instead; `wait(taskId)` resumes polling, from any client process.
 */
import { LocalError, RpcError } from '../../jsonrpc/errors.js';
import { delay as wait } from '../../util/abort.js';
import type { McpClient } from '../../client/client.js';
import { answerInputRequest, readInputRequests } from '../../client/input.js';
import type { ClientHandlers } from '../../client/types.js';
import type { CallToolResult, ClientCapabilities, InputResponse, JSONObject } from '../../mcp/types.js';
import { TASKS_EXTENSION_ID, type DetailedTask, type Task, TaskMethod, isTerminal } from './wire.js';
import { isRecord } from '../../util/record.js';
import type { CallOptions } from '../../client/contracts.js';

export interface TasksClientOptions {
  /** Answers the tasks' input requests: pass the client's own handlers so tasks and MRTR ask alike. */
  handlers?: ClientHandlers;
  /** First poll delay when the server suggests none (default 500 ms). */
  pollIntervalMs?: number;
  /** Longest delay the backoff reaches (default 5 s; never below the server's pollIntervalMs). */
  maxPollIntervalMs?: number;
}

export interface TaskCallOptions extends Pick<CallOptions, 'timeoutMs' | 'onprogress'> {
  /** Aborting cancels the task (tasks/cancel) and rejects with LocalError 'cancelled'. */
  signal?: AbortSignal;
  /** The call became a task: its id is what `wait` needs to resume after a restart. */
  ontask?: (task: Task) => void;
  /** Every status change seen while waiting. */
  onstatus?: (task: DetailedTask) => void;
}

/** A tools/call answered with a CreateTaskResult (SEP-2663 Polymorphic Results: resultType `task`). */
export function isTaskResult(value: CallToolResult): boolean {
  return (value as unknown as JSONObject).resultType === 'task';
}

export type StartedCall = { readonly result: CallToolResult } | { readonly task: Task };

/** `capabilities` plus the tasks extension: what a client passes to `McpClient.connect` to receive tasks. */
export function withTasksCapability(capabilities: ClientCapabilities = {}): ClientCapabilities {
  return { ...capabilities, extensions: { ...(capabilities.extensions ?? {}), [TASKS_EXTENSION_ID]: {} } };
}

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** A tasks/get or CreateTaskResult answer, checked for the fields this client relies on. */
function readTask(value: unknown): DetailedTask {
  if (!isRecord(value) || typeof value.taskId !== 'string' || !STATUSES.has(String(value.status)))
    throw new LocalError('protocol_error', 'the server answered with a malformed task');
  return value as unknown as DetailedTask;
}

const NO_OPTIONS: CallOptions = Object.freeze({});

/** The request options of the tools/call that may start a task (none: one shared empty object). */
export function callOptionsOf(
  options: Pick<TaskCallOptions, 'signal' | 'timeoutMs' | 'onprogress'>,
): CallOptions {
  if (!options.signal && options.timeoutMs === undefined && !options.onprogress) return NO_OPTIONS;
  const requestOptions: CallOptions = {};
  if (options.signal) requestOptions.signal = options.signal;
  if (options.timeoutMs !== undefined) requestOptions.timeoutMs = options.timeoutMs;
  if (options.onprogress) requestOptions.onprogress = options.onprogress;
  return requestOptions;
}

export class TasksClient {
  readonly #client: McpClient;
  readonly #handlers: ClientHandlers | undefined;
  readonly #minPollMs: number;
  readonly #maxPollMs: number;

  constructor(client: McpClient, options: TasksClientOptions = {}) {
    this.#client = client;
    this.#handlers = options.handlers;
    this.#minPollMs = Math.max(10, options.pollIntervalMs ?? 500);
    this.#maxPollMs = Math.max(this.#minPollMs, options.maxPollIntervalMs ?? 5000);
  }

  /**
   * Calls a tool; a task-backed call is awaited to its end and its result returned like a direct one. Chained
   * reactions rather than async functions: a direct result (the common case) costs one reaction here.
   */
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options: TaskCallOptions = {},
  ): Promise<CallToolResult> {
    return this.#client
      .callTool(params, callOptionsOf(options))
      .then((value) => (isTaskResult(value) ? this.follow(value, options) : value));
  }

  /**
   * A tools/call's answer as `callTool` resolves it, for a caller that sent the tools/call itself: a result as it
   * is, a CreateTaskResult checked, reported to `options.ontask` and awaited to the task's end.
   */
  follow(value: CallToolResult, options: TaskCallOptions = {}): Promise<CallToolResult> {
    if (!isTaskResult(value)) return Promise.resolve(value);
    let task: DetailedTask;
    try {
      task = readTask(value);
      options.ontask?.(task);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.wait(task.taskId, options);
  }

  /** Calls a tool and returns either its result or, when the server made it a task, the task. */
  start(
    params: { name: string; arguments?: Record<string, unknown> },
    options: TaskCallOptions = {},
  ): Promise<StartedCall> {
    return this.#client.callTool(params, callOptionsOf(options)).then((value) => {
      const result = value as unknown as JSONObject;
      return result.resultType !== 'task' ? { result: value } : { task: readTask(result) };
    });
  }

  get(taskId: string, options: Pick<CallOptions, 'signal' | 'timeoutMs'> = {}): Promise<DetailedTask> {
    return this.#client.request(TaskMethod.Get, { taskId }, options).then(readTask);
  }

  /** Delivers answers for some or all of the task's pending input requests. */
  async update(taskId: string, inputResponses: Record<string, InputResponse>): Promise<void> {
    await this.#client.request(TaskMethod.Update, { taskId, inputResponses: inputResponses as JSONObject });
  }

  /** Asks the server to cancel the task (cooperative: the status settles later). */
  async cancel(taskId: string): Promise<void> {
    await this.#client.request(TaskMethod.Cancel, { taskId });
  }

  /**
   * Polls the task to its end, answering its input requests on the way; works for any task id this principal
   * owns, so a new client process resumes a task its predecessor started.
   */
  async wait(taskId: string, options: TaskCallOptions = {}): Promise<CallToolResult> {
    const { signal } = options;
    const answered = new Set<string>();
    let delay = this.#minPollMs;
    let lastStatus: string | undefined;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const task = await this.get(taskId, signal ? { signal } : {});
        if (`${task.status}:${task.lastUpdatedAt}` !== lastStatus) {
          lastStatus = `${task.status}:${task.lastUpdatedAt}`;
          options.onstatus?.(task);
          delay = this.#minPollMs;
        }
        if (isTerminal(task.status)) return this.#settled(task);
        if (task.status === 'input_required') this.#answer(task, answered, signal);
        const floor = Math.max(this.#minPollMs, task.pollIntervalMs ?? 0);
        await wait(Math.max(floor, delay), signal);
        delay = Math.min(Math.max(this.#maxPollMs, floor), Math.ceil(delay * 1.5));
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
      // SEP-2663 Task Cancellation: the caller gave up; tell the server, then report the abort.
      await this.cancel(taskId).catch(() => {});
      throw new LocalError('cancelled', `task ${taskId} cancelled by the caller`, { cause: signal.reason });
    }
  }

  #settled(task: DetailedTask): CallToolResult {
    if (task.status === 'completed') {
      if (!isRecord(task.result))
        throw new LocalError('protocol_error', 'a completed task carries no result');
      return task.result as unknown as CallToolResult;
    }
    if (task.status === 'failed') {
      const error = task.error;
      if (!error || typeof error.code !== 'number') throw new LocalError('protocol_error', 'task failed');
      throw new RpcError(error.code, error.message, error.data);
    }
    throw new LocalError('cancelled', `task ${task.taskId} was cancelled`);
  }

  /** Each input request once, each answer sent as soon as it is ready (partial updates are allowed). */
  #answer(task: DetailedTask, answered: Set<string>, signal: AbortSignal | undefined): void {
    const context = { relatedMethod: 'tools/call', signal: signal ?? new AbortController().signal };
    for (const [key, method, params] of readInputRequests(task.inputRequests)) {
      if (answered.has(key)) continue;
      answered.add(key);
      answerInputRequest(this.#handlers, method, params, context)
        .then((answer) => this.update(task.taskId, { [key]: answer as unknown as InputResponse }))
        .catch(() => {
          // Unanswerable here (no handler): the task stays input_required until it is cancelled or expires.
        });
    }
  }
}
