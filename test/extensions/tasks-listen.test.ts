/**
 * SEP-2663 Task Status Notifications over real HTTP: subscriptions/listen with `notifications.taskIds` is
 * acknowledged with the caller's own tasks only and streams `notifications/tasks` (the full DetailedTask) on
 * each status change; a client without the extension is refused with -32021.
 */
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { TasksClient, TasksExtension, withTasksCapability } from '../../src/extensions/tasks/index.js';
import { McpServer } from '../../src/server/index.js';

const VERSION = '2026-07-28';

function listenBody(taskIds: string[], extensions: Record<string, object>) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 'listen-1',
    method: 'subscriptions/listen',
    params: {
      notifications: { taskIds },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientCapabilities': { extensions },
      },
    },
  });
}

async function* sseMessages(response: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('');
      if (data) yield JSON.parse(data) as Record<string, unknown>;
      end = buffer.indexOf('\n\n');
    }
  }
}

describe('notifications/tasks on subscriptions/listen', () => {
  it("streams the caller's task changes and acknowledges only its own tasks", async () => {
    const server = new McpServer({ name: 'listen', version: '1.0.0' });
    const tasks = new TasksExtension({ pollIntervalMs: 10 });
    server.use(tasks);
    // The job ends only once the test has seen the acknowledgement: its completion cannot beat the listen.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.registerTool('job', {}, async (_args, ctx) => {
      await ctx.task?.detach();
      await released;
      await ctx.task?.status('finishing');
      return { content: [{ type: 'text', text: 'job done' }] };
    });
    tasks.declare('job');
    const listening = await server.listen();
    try {
      await using client = await McpClient.connect(listening.url, { capabilities: withTasksCapability() });
      const started = await new TasksClient(client).start({ name: 'job' });
      if (!('task' in started)) throw new Error('job did not become a task');
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': 'subscriptions/listen',
      };
      const refused = await fetch(listening.url, {
        method: 'POST',
        headers,
        body: listenBody([started.task.taskId], {}),
      });
      const refusedBody = JSON.stringify(await refused.json());
      expect(refusedBody).toContain('-32021');
      const controller = new AbortController();
      const response = await fetch(listening.url, {
        method: 'POST',
        headers,
        body: listenBody([started.task.taskId, 'not-a-task-of-mine'], {
          'io.modelcontextprotocol/tasks': {},
        }),
        signal: controller.signal,
      });
      const seen: Array<Record<string, unknown>> = [];
      for await (const message of sseMessages(response)) {
        seen.push(message);
        if (message.method === 'notifications/subscriptions/acknowledged') release();
        const params = message.params as Record<string, unknown> | undefined;
        if (message.method === 'notifications/tasks' && params?.status === 'completed') break;
      }
      controller.abort();
      expect(seen[0]).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [started.task.taskId] } },
      });
      expect(seen[1]).toMatchObject({ params: { status: 'working', statusMessage: 'finishing' } });
      const completed = seen.at(-1)?.params as Record<string, unknown>;
      expect(completed).toMatchObject({
        taskId: started.task.taskId,
        status: 'completed',
        result: { content: [{ type: 'text', text: 'job done' }] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
      });
    } finally {
      await listening.close();
    }
  });
});
