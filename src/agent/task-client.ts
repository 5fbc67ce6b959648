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
import type { CallSink, TaskUpdate, ToolCallOptions } from './client-surface.js';

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

/** `callTool(params, options)` with the answer handed to `sink`, a client's own step after the call in one reaction. */
export type CallToolInto = (
  params: { name: string; arguments?: Record<string, unknown> },
  options: ToolCallOptions | undefined,
  sink: CallSink,
) => void;

/**
 * Where a `callTool` of `withTaskCalls` keeps its continuation form: on the function itself, so a wrapper that
 * puts a `callTool` of its own in front (logging, recording) has none, and its calls go through it.
 */
const INTO_FORM = Symbol('callToolInto');

/** The continuation form of a client's `callTool`, when it is one `withTaskCalls` made. */
export function callToolIntoOf(callTool: object): CallToolInto | undefined {
  return (callTool as { [INTO_FORM]?: CallToolInto })[INTO_FORM];
}

/**
 * The same client, with `callTool` going through a TasksClient. Everything else is the client's own (bound to
 * it, since its state is private), so code holding it still sees an McpClient. The host calls through the
 * continuation form (callToolIntoOf): the task check runs in the call's own reaction.
 */
export function withTaskCalls(
  client: McpClient,
  handlers: ClientHandlers,
  onTask?: (update: TaskUpdate) => void,
): McpClient {
  const tasks = new TasksClient(client, { handlers });
  const callToolInto: CallToolInto = (params, options = NO_OPTIONS, sink) => {
    client.callTool(params, callOptionsOf(options)).then(
      (value) => {
        if (!isTaskResult(value)) {
          sink.answered(value);
          return;
        }
        tasks.follow(value, new TaskCall(params.name, onTask, options)).then(
          (result) => sink.answered(result),
          (error: unknown) => sink.failed(error),
        );
      },
      (error: unknown) => sink.failed(error),
    );
  };
  const callTool = Object.assign(
    (
      params: { name: string; arguments?: Record<string, unknown> },
      options?: ToolCallOptions,
    ): Promise<CallToolResult> =>
      new Promise((answered, failed) => callToolInto(params, options, { answered, failed })),
    { [INTO_FORM]: callToolInto },
  );
  return new Proxy(client, {
    get(target, property) {
      if (property === 'callTool') return callTool;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
