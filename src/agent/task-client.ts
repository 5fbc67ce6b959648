/**
 * The host's client with the tasks extension (SEP-2663) in front of `callTool`: a tool the server runs as a task
 * is awaited to its end (polling, its input requests answered through the host's own elicitation and sampling
 * handlers, the same path MRTR takes), so the per-request timeout bounds each poll, not the task; every status
 * the task goes through is reported, so UIs show the call as running.
 */
import type { McpClient } from '../client/client.js';
import type { ClientHandlers } from '../client/types.js';
import { type TaskCallOptions, TasksClient } from '../extensions/tasks/client.js';
import type { CallToolResult } from '../mcp/types.js';
import type { TaskUpdate, ToolCallOptions } from './client-surface.js';

const NO_OPTIONS: ToolCallOptions = Object.freeze({});

/**
 * The same client, with `callTool` going through a TasksClient. Everything else is the client's own (bound to
 * it, since its state is private), so code holding it still sees an McpClient.
 */
export function withTaskCalls(
  client: McpClient,
  handlers: ClientHandlers,
  onTask?: (update: TaskUpdate) => void,
): McpClient {
  const tasks = new TasksClient(client, { handlers });
  const callTool = (
    params: { name: string; arguments?: Record<string, unknown> },
    options: ToolCallOptions = NO_OPTIONS,
  ): Promise<CallToolResult> => {
    const { ontask } = options;
    const report = (task: { taskId: string; status: TaskUpdate['status']; statusMessage?: string }) => {
      const update: TaskUpdate = {
        tool: params.name,
        taskId: task.taskId,
        status: task.status,
        ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
      };
      onTask?.(update);
      ontask?.(update);
    };
    // Only what TasksClient reads, field by field: an object rest (`{ ontask, ...rest }`) takes V8's slow
    // runtime path on every call.
    const taskOptions: TaskCallOptions = { ontask: report, onstatus: report };
    if (options.signal) taskOptions.signal = options.signal;
    if (options.timeoutMs !== undefined) taskOptions.timeoutMs = options.timeoutMs;
    if (options.onprogress) taskOptions.onprogress = options.onprogress;
    return tasks.callTool(params, taskOptions);
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'callTool') return callTool;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
