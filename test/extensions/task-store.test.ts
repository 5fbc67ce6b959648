/**
 * The in-memory TaskStore (TTL, cap on kept tasks, atomic updates, subscriptions) and what the server does when
 * it is full: the call runs inline and answers its own request instead of failing.
 */
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import {
  InMemoryTaskStore,
  TaskLimitError,
  type TaskRecord,
  TasksClient,
  TasksExtension,
  withTasksCapability,
} from '../../src/extensions/tasks/index.js';
import { McpServer } from '../../src/server/index.js';

const record = (taskId: string, createdAt: number, ttlMs: number | null = 1000): TaskRecord => ({
  taskId,
  principal: 'p',
  status: 'working',
  createdAt,
  lastUpdatedAt: createdAt,
  ttlMs,
});

describe('InMemoryTaskStore', () => {
  it('caps the tasks it keeps, making room only by expiring old ones', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 2 });
    const now = Date.now();
    await store.create(record('a', now - 5000));
    await store.create(record('b', now, null));
    // 'a' is past its TTL: expired to make room.
    await store.create(record('c', now));
    await expect(store.create(record('d', now))).rejects.toBeInstanceOf(TaskLimitError);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toMatchObject({ ttlMs: null });
    expect(await store.expire(now + 10_000)).toEqual(['c']);
    store.close();
  });

  it('applies concurrent updates without losing any, and tells subscribers of each', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('t', Date.now()));
    const seen: string[] = [];
    const stop = store.subscribe('t', (changed) =>
      seen.push(Object.keys(changed.inputRequests ?? {}).join()),
    );
    const ask = (key: string) =>
      store.update('t', (current) => ({
        ...current,
        inputRequests: { ...current.inputRequests, [key]: { method: 'roots/list', params: {} } },
      }));
    await Promise.all([ask('x'), ask('y'), ask('z')]);
    expect(Object.keys((await store.get('t'))?.inputRequests ?? {})).toEqual(['x', 'y', 'z']);
    expect(seen).toEqual(['x', 'x,y', 'x,y,z']);
    stop();
    await ask('w');
    expect(seen).toHaveLength(3);
    expect(await store.update('missing', (current) => current)).toBeUndefined();
    store.close();
  });
});

describe('a full task store', () => {
  it('runs the call inline instead of failing it', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 1 });
    const server = new McpServer({ name: 'full', version: '1.0.0' });
    const tasks = new TasksExtension({ store, immediateResultMs: 0 });
    server.use(tasks);
    server.registerTool(
      'work',
      { inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
      async ({ ms }: { ms: number }, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { content: [{ type: 'text', text: ctx.task?.taskId ? 'as a task' : 'inline' }] };
      },
    );
    tasks.declare('work');
    const listening = await server.listen();
    try {
      await using client = await McpClient.connect(listening.url, { capabilities: withTasksCapability() });
      const taskClient = new TasksClient(client, { pollIntervalMs: 10 });
      const first = await taskClient.start({ name: 'work', arguments: { ms: 500 } });
      expect('task' in first).toBe(true);
      const second = await taskClient.start({ name: 'work', arguments: { ms: 50 } });
      expect(second).toEqual({
        result: expect.objectContaining({ content: [{ type: 'text', text: 'inline' }] }),
      });
    } finally {
      await listening.close();
      store.close();
    }
  });
});
