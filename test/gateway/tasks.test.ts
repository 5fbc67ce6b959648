/**
 * Tasks (SEP-2663) through the gateway, to a real upstream that runs tools as tasks: a declaring caller gets
 * the task under the gateway's id and polls it to its end (its input requests answered on the way); a caller
 * that does not declare the extension gets the result inline; an id the gateway never handed out is unknown;
 * a listen with `taskIds` gets the upstream's notifications/tasks under the gateway's id.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TasksClient, withTasksCapability } from '../../src/extensions/tasks/index.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import type { SubscriptionFilter } from '../../src/mcp/types.js';
import { FIXTURES } from '../client/helpers.js';
import { type Running, startGateway, textOf } from './support.js';

let running: Running;

beforeAll(async () => {
  running = await startGateway({
    jobs: { command: process.execPath, args: [join(FIXTURES, 'tasks-server.mjs'), '--stdio'] },
  });
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
});

const answers = {
  elicitation: async (params: { message: string }) => ({
    action: 'accept' as const,
    content: { answer: params.message.includes('name') ? 'Ada' : 'green' },
  }),
};

describe('tasks through the gateway', () => {
  it('hands a declaring caller the upstream task under its own id and relays tasks/get and tasks/update', async () => {
    const client = await running.connect({
      protocolVersion: '2026-07-28',
      handlers: answers,
      capabilities: withTasksCapability({ elicitation: { form: {} } }),
    });
    const tasks = new TasksClient(client, { handlers: answers, pollIntervalMs: 20 });
    const started = await tasks.start({ name: 'jobs__render', arguments: { ms: 300 } });
    expect('task' in started).toBe(true);
    const taskId = 'task' in started ? started.task.taskId : '';
    expect(taskId.startsWith('jobs__')).toBe(true);
    const result = await tasks.wait(taskId);
    expect(textOf(result)).toBe('rendered in 300 ms (task)');
    // A task that asks for input on the way: answered through tasks/update, relayed to the upstream.
    const interview = await tasks.callTool({ name: 'jobs__interview', arguments: {} });
    expect(textOf(interview)).toBe('Ada likes green');
  });

  it('runs the call inline for a caller that does not declare tasks', async () => {
    const client = await running.connect({ protocolVersion: '2026-07-28' });
    const result = await client.callTool({ name: 'jobs__render', arguments: { ms: 10 } });
    expect(textOf(result)).toBe('rendered in 10 ms (inline)');
  });

  it('answers an unknown task id as unknown', async () => {
    const client = await running.connect({
      protocolVersion: '2026-07-28',
      capabilities: withTasksCapability({}),
    });
    const error = await client.request('tasks/get', { taskId: 'jobs__nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toBe('Unknown task');
  });

  it("relays the upstream's notifications/tasks to the caller's listen stream under the gateway's id", async () => {
    const client = await running.connect({
      protocolVersion: '2026-07-28',
      capabilities: withTasksCapability({}),
    });
    const started = await new TasksClient(client).start({ name: 'jobs__render', arguments: { ms: 800 } });
    if (!('task' in started)) throw new Error('the call did not become a task');
    const taskId = started.task.taskId;
    const heard: Array<Record<string, unknown>> = [];
    let completed = () => {};
    const done = new Promise<void>((resolve) => {
      completed = resolve;
    });
    const subscription = await client.subscribe(
      { taskIds: [taskId, 'jobs__not-mine'] } as SubscriptionFilter,
      (notification) => {
        heard.push({ method: notification.method, ...notification.params });
        if (notification.params?.status === 'completed') completed();
      },
    );
    expect(subscription.acknowledged).toEqual({ taskIds: [taskId] });
    await done;
    await subscription.close();
    const last = heard.at(-1)!;
    expect(last).toMatchObject({ method: 'notifications/tasks', taskId, status: 'completed' });
    expect(JSON.stringify(last)).toContain('rendered in 800 ms (task)');
    expect(heard.every((n) => n.taskId === taskId)).toBe(true);
  });
});
