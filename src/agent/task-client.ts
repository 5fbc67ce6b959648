/**
 * The host's client with the tasks extension (SEP-2663) in front of `callTool`: a tool the server runs as a task
 * is awaited to its end (polling, its input requests answered through the host's own elicitation and sampling
 * handlers, the same path MRTR takes), so the per-request timeout bounds each poll, not the task; every status
 * the task goes through is reported, so UIs show the call as running.
 */
import type { McpClient } from '../client/client.js';
import type { ClientHandlers } from '../client/types.js';
import {
  type TaskCallOptions,
  TasksClient,
  callOptionsOf,
  isTaskResult,
} from '../extensions/tasks/client.js';
import type { CallToolResult } from '../mcp/types.js';
import type { TaskUpdate, ToolCallOptions } from './client-surface.js';

const NO_OPTIONS: ToolCallOptions = Object.freeze({});

type TaskStatusUpdate = { taskId: string; status: TaskUpdate['status']; statusMessage?: string };

/**
 * One call's options for TasksClient: what it reads of the caller's, and each task status reported to the host
 * and the caller. Methods on one object rather than a closure per call: TasksClient calls them as
 * `options.ontask(...)`, and most calls never become tasks.
 */
class TaskCall implements TaskCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onprogress?: TaskCallOptions['onprogress'];
  readonly #tool: string;
  readonly #onTask: ((update: TaskUpdate) => void) | undefined;
  readonly #ontask: ((update: TaskUpdate) => void) | undefined;

  constructor(tool: string, onTask: ((update: TaskUpdate) => void) | undefined, options: ToolCallOptions) {
    this.#tool = tool;
    this.#onTask = onTask;
    this.#ontask = options.ontask;
    // Field by field: an object rest (`{ ontask, ...rest }`) takes V8's slow runtime path on every call.
    if (options.signal) this.signal = options.signal;
    if (options.timeoutMs !== undefined) this.timeoutMs = options.timeoutMs;
    if (options.onprogress) this.onprogress = options.onprogress;
  }

  ontask(task: TaskStatusUpdate): void {
    this.#report(task);
  }

  onstatus(task: TaskStatusUpdate): void {
    this.#report(task);
  }

  #report(task: TaskStatusUpdate): void {
    const update: TaskUpdate = {
      tool: this.#tool,
      taskId: task.taskId,
      status: task.status,
      ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
    };
    this.#onTask?.(update);
    this.#ontask?.(update);
  }
}

/** `callTool(params, options).then(onResult, onFailure)`, with a client's own step after the call in one reaction. */
export type CallToolThen = <T>(
  params: { name: string; arguments?: Record<string, unknown> },
  options: ToolCallOptions | undefined,
  onResult: (result: CallToolResult) => T | PromiseLike<T>,
  onFailure: (error: unknown) => T | PromiseLike<T>,
) => Promise<T>;

/**
 * Where a `callTool` of `withTaskCalls` keeps its continuation form: on the function itself, so a wrapper that
 * puts a `callTool` of its own in front (logging, recording) has none, and its calls go through it.
 */
const THEN_FORM = Symbol('callToolThen');

/** The continuation form of a client's `callTool`, when it is one `withTaskCalls` made. */
export function callToolThenOf(callTool: object): CallToolThen | undefined {
  return (callTool as { [THEN_FORM]?: CallToolThen })[THEN_FORM];
}

/**
 * The same client, with `callTool` going through a TasksClient. Everything else is the client's own (bound to
 * it, since its state is private), so code holding it still sees an McpClient. The host calls through the
 * continuation form (callToolThenOf): the task check runs in the call's own reaction.
 */
export function withTaskCalls(
  client: McpClient,
  handlers: ClientHandlers,
  onTask?: (update: TaskUpdate) => void,
): McpClient {
  const tasks = new TasksClient(client, { handlers });
  const callToolThen = <T>(
    params: { name: string; arguments?: Record<string, unknown> },
    options: ToolCallOptions = NO_OPTIONS,
    onResult: (result: CallToolResult) => T | PromiseLike<T>,
    onFailure: (error: unknown) => T | PromiseLike<T>,
  ): Promise<T> =>
    client
      .callTool(params, callOptionsOf(options))
      .then(
        (value) =>
          isTaskResult(value)
            ? tasks.follow(value, new TaskCall(params.name, onTask, options)).then(onResult, onFailure)
            : onResult(value),
        onFailure,
      );
  const callTool = Object.assign(
    (
      params: { name: string; arguments?: Record<string, unknown> },
      options?: ToolCallOptions,
    ): Promise<CallToolResult> => callToolThen(params, options, asResult, rethrow),
    { [THEN_FORM]: callToolThen },
  );
  return new Proxy(client, {
    get(target, property) {
      if (property === 'callTool') return callTool;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The continuations of a caller that wants the result itself (`callTool` from its continuation form). */
export const asResult = (result: CallToolResult): CallToolResult => result;

export const rethrow = (error: unknown): never => {
  throw error;
};
