/**
 * agentforge/extensions/tasks: the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`).
 *
 * ```ts
 * const tasks = new TasksExtension({ ttlMs: 3_600_000 });
 * server.use(tasks);
 * server.registerTool('render', { inputSchema }, async (args, ctx) => {
 *   await ctx.task?.detach();           // answer with CreateTaskResult now (else: after immediateResultMs)
 *   const ok = await ctx.elicit({ ... }); // while detached: the task's inputRequests, answered by tasks/update
 *   return { content: [{ type: 'text', text: 'done' }] };
 * });
 * tasks.declare('render', 'optional'); // or 'required': a client without the extension then gets -32021
 * ```
 * A client that did not declare the extension gets the same handler inline, within its request.
 */
export {
  ANONYMOUS_PRINCIPAL,
  TasksExtension,
  type TasksServerOptions,
  taskOwner,
} from './server.js';
export {
  type StartedCall,
  type TaskCallOptions,
  TasksClient,
  type TasksClientOptions,
  withTasksCapability,
} from './client.js';
export {
  InMemoryTaskStore,
  type InMemoryTaskStoreOptions,
  TaskLimitError,
  type TaskChange,
  type TaskListener,
  type TaskStore,
} from './store.js';
export {
  type DetailedTask,
  TASKS_EXTENSION_ID,
  type Task,
  type TaskError,
  TaskMethod,
  type TaskRecord,
  type TaskStatus,
  type TaskSupport,
  isTerminal,
} from './wire.js';
