/**
 * The tools the suite's tasks-* scenarios call (SEP-2663; names and behaviour from the scenarios' "Required
 * server fixtures"): greet (sync only), slow_compute, confirm_delete, multi_input, failing_job,
 * protocol_error_job and test_tool_with_task (MRTR input first, then a task).
 */
import { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode } from '../mcp/errors.js';
import { TasksExtension } from '../extensions/tasks/index.js';
import type { McpServer } from '../server/index.js';

/** Waits `ms`, or rejects when the signal aborts (tasks/cancel): the cooperative half of cancellation. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const confirmSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean' }, name: { type: 'string' } },
} as const;

export function taskTools(server: McpServer, tasks: TasksExtension = new TasksExtension()): TasksExtension {
  server.use(tasks);
  server.registerTool(
    'greet',
    {
      description: 'Greets by name (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    },
    ({ name }: { name?: string }) => text(`Hello, ${name ?? 'World'}!`),
  );
  server.registerTool(
    'slow_compute',
    {
      description: 'Sleeps `seconds` (at most 120) and reports; may run as a task',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0, maximum: 120 }, label: { type: 'string' } },
      },
    },
    async ({ seconds = 1, label = 'job' }: { seconds?: number; label?: string }, ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return text(`Computed ${label} in ${seconds}s`);
    },
  );
  server.registerTool(
    'confirm_delete',
    {
      description: 'Asks to confirm deleting a file, as a task',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    },
    async ({ filename = 'file' }: { filename?: string }, ctx) => {
      await ctx.task?.detach();
      const answer = await ctx.elicit({
        message: `Delete ${filename}?`,
        requestedSchema: confirmSchema as never,
      });
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  );
  server.registerTool(
    'multi_input',
    { description: 'Asks two questions at once, as a task' },
    async (_args, ctx) => {
      await ctx.task?.detach();
      const ask = (message: string) => ctx.elicit({ message, requestedSchema: confirmSchema as never });
      const [first, second] = await Promise.all([ask('First question?'), ask('Second question?')]);
      return text(`Answers: ${String(first.content?.name)}, ${String(second.content?.name)}`);
    },
  );
  server.registerTool(
    'failing_job',
    { description: 'Fails as a tool after about a second' },
    async (_a, ctx) => {
      await sleep(1000, ctx.signal);
      return { content: [{ type: 'text', text: 'failing_job: the job failed' }], isError: true };
    },
  );
  server.registerTool('protocol_error_job', { description: 'Ends in a JSON-RPC error' }, async (_a, ctx) => {
    await sleep(200, ctx.signal);
    throw new RpcError(McpErrorCode.InternalError, 'protocol_error_job: execution failed');
  });
  server.registerTool(
    'test_tool_with_task',
    { description: 'Asks for user_name (MRTR), then runs as a task' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { key: 'user_name' },
      );
      await ctx.task?.detach();
      await sleep(200, ctx.signal);
      return text(`Hello, ${String(answer.content?.name)}!`);
    },
  );
  tasks
    .declare('slow_compute', 'optional')
    .declare('confirm_delete', 'optional')
    .declare('multi_input', 'optional')
    .declare('failing_job', 'required')
    .declare('protocol_error_job', 'optional')
    .declare('test_tool_with_task', 'required');
  return tasks;
}
