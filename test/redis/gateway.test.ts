/**
 * Three gateway processes sharing their state through a real redis-server, behind a real haproxy balancing
 * round robin, in front of one upstream server: an MRTR round started on one gateway instance continues on
 * another (the retry forwarded to the instance holding the upstream request), a task handed out through A is
 * polled through B and answered through C, a rate limit holds across instances, list_changed reaches listen
 * streams and session GET streams on every instance, a 2025-11-25 session continues through every instance,
 * and with Redis gone only what needs it fails.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { TasksClient, withTasksCapability } from '../../src/extensions/tasks/index.js';
import {
  type Instance,
  NO_REDIS,
  REDIS_SERVER,
  type RedisProcess,
  kill,
  startGatewayCluster,
  startGatewayInstance,
  stopAll,
  until,
} from './harness.js';
import { LegacySession, type Message, SseTransportSession, listen, modernCall, textOf } from './wire.js';

let redis: RedisProcess;
let a: Instance;
let b: Instance;
let c: Instance;
let upstream: Instance;
let balanced: string;
let inspect: Redis;

if (!REDIS_SERVER) console.warn(`skipping test/redis/gateway.test.ts: ${NO_REDIS}`);

const ANSWER = (name: string) => ({ action: 'accept' as const, content: { name } });

/** The first round of up__greet on `url`: its requestState and the gateway's key for the question. */
async function firstRound(url: string): Promise<{ requestState: string; key: string }> {
  const first = await modernCall(url, 'tools/call', { name: 'up__greet', arguments: {} });
  expect(first.result).toMatchObject({ resultType: 'input_required' });
  const [key] = Object.keys(first.result.inputRequests as Record<string, unknown>);
  return { requestState: first.result.requestState as string, key: key as string };
}

describe.skipIf(!REDIS_SERVER)('the gateway scaled out through Redis (3 instances behind haproxy)', () => {
  beforeAll(async () => {
    ({
      redis,
      upstream,
      instances: [a, b, c],
      balanced,
    } = await startGatewayCluster());
    inspect = new Redis({ port: redis.port, host: '127.0.0.1' });
    // While the test stops Redis, this inspecting client's reconnect attempts are expected.
    inspect.on('error', () => {});
  }, 60_000);

  afterAll(async () => {
    inspect?.disconnect();
    await stopAll();
  });

  it('an elicitation started on A is answered through B: the retry reaches the upstream request A holds', async () => {
    const { requestState, key } = await firstRound(a.url);
    expect(requestState.startsWith('v2.g1.')).toBe(true);
    const retry = {
      name: 'up__greet',
      arguments: {},
      inputResponses: { [key]: ANSWER('Ada') },
      requestState,
    };
    expect(textOf(await modernCall(b.url, 'tools/call', retry))).toBe('Hello, Ada, from U');
    // One-time: the same state presented again, anywhere, is refused.
    expect((await modernCall(c.url, 'tools/call', retry)).error).toMatchObject({
      code: -32602,
      message: 'Invalid requestState',
    });
  });

  it('a 2026-07-28 client through the balancer: each round lands on the next instance, the call completes', async () => {
    await using client = await McpClient.connect(balanced, {
      protocolVersion: '2026-07-28',
      capabilities: { elicitation: { form: {} } },
      handlers: { elicitation: async () => ({ action: 'accept', content: { name: 'Bo' } }) },
    });
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: 'up__greet', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Bo, from U' }]);
    }
  });

  it("a retry bound to another call reaches no instance's parked request; the right retry does", async () => {
    const { requestState, key } = await firstRound(a.url);
    const retry = { name: 'up__greet', arguments: {}, inputResponses: { [key]: ANSWER('X') }, requestState };
    // The state is bound to the call's arguments: with others it does not verify, on any instance.
    const other = await modernCall(b.url, 'tools/call', { ...retry, arguments: { extra: 1 } });
    expect(other.error).toMatchObject({ code: -32602 });
    expect(textOf(await modernCall(c.url, 'tools/call', retry))).toBe('Hello, X, from U');
  });

  it('a task handed out through A is polled through B and answered through C', async () => {
    const capabilities = withTasksCapability({ elicitation: { form: {} } });
    const connect = (url: string) => McpClient.connect(url, { protocolVersion: '2026-07-28', capabilities });
    await using clientA = await connect(a.url);
    await using clientB = await connect(b.url);
    await using clientC = await connect(c.url);
    const started = await new TasksClient(clientA).start({ name: 'up__interview' });
    if (!('task' in started)) throw new Error('interview did not become a task');
    const { taskId } = started.task;
    expect(taskId.startsWith('up__')).toBe(true);
    const polled = new TasksClient(clientB);
    const asking = await until(async () => {
      const task = await polled.get(taskId);
      return task.status === 'input_required' ? task : undefined;
    });
    const [key] = Object.keys(asking.inputRequests ?? {});
    await new TasksClient(clientC).update(taskId, { [key as string]: ANSWER('Linus') });
    const done = await until(async () => {
      const task = await polled.get(taskId);
      return task.status === 'completed' ? task : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Linus answered, task ran on U' }] });
    expect(await inspect.pttl(`gw:gateway:task:${taskId}`)).toBeGreaterThan(0);
  });

  it('a gateway instance killed after handing out a task: the task goes on through the others', async () => {
    const doomed = await startGatewayInstance('D', redis.port, upstream.url);
    const capabilities = withTasksCapability({ elicitation: { form: {} } });
    const clientD = await McpClient.connect(doomed.url, { protocolVersion: '2026-07-28', capabilities });
    const started = await new TasksClient(clientD).start({ name: 'up__interview' });
    if (!('task' in started)) throw new Error('interview did not become a task');
    await kill(doomed.child, 'SIGKILL');
    clientD.close().catch(() => {});
    await using clientB = await McpClient.connect(b.url, { protocolVersion: '2026-07-28', capabilities });
    const tasks = new TasksClient(clientB);
    const asking = await until(async () => {
      const task = await tasks.get(started.task.taskId);
      return task.status === 'input_required' ? task : undefined;
    });
    const [key] = Object.keys(asking.inputRequests ?? {});
    await tasks.update(started.task.taskId, { [key as string]: ANSWER('Kim') });
    const done = await until(async () => {
      const task = await tasks.get(started.task.taskId);
      return task.status === 'completed' ? task : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Kim answered, task ran on U' }] });
  });

  it("a principal's rate limit holds across the instances", async () => {
    const outcomes: Message[] = [];
    for (let i = 0; i < 7; i++)
      outcomes.push(await modernCall(balanced, 'tools/call', { name: 'up__memory' }));
    // Four tokens for the principal whichever instance serves it (per instance, all seven would pass).
    expect(outcomes.filter((outcome) => 'result' in outcome)).toHaveLength(4);
    const refused = outcomes.filter((outcome) => 'error' in outcome);
    expect(refused).toHaveLength(3);
    for (const outcome of refused) {
      expect(outcome.error).toMatchObject({ code: -32029, message: expect.stringContaining('rate limit') });
      expect(outcome.error.data.retryAfterMs).toBeGreaterThan(0);
    }
    const buckets = await inspect.keys('gw:gateway:rate:*');
    expect(buckets).toHaveLength(1);
    expect(await inspect.pttl(buckets[0] as string)).toBeGreaterThan(0);
  });

  it('a 2025-11-25 session continues through every instance; list_changed reaches listen and GET streams everywhere', async () => {
    const session = new LegacySession(balanced);
    expect((await session.initialize()).result).toMatchObject({ protocolVersion: '2025-11-25' });
    for (let i = 0; i < 6; i++) {
      const { status, message } = await session.request('tools/call', { name: 'up__whoami' });
      expect(status).toBe(200);
      expect(textOf(message as Message)).toBe('U');
    }
    expect(await inspect.pttl(`gw:session:{${session.sessionId}}`)).toBeGreaterThan(0);
    const get = await session.openGet(c.url);
    const streams = await Promise.all(
      [a, b, c].map((instance) => listen(instance.url, `sub-${instance.name}`, { toolsListChanged: true })),
    );
    await Promise.all(streams.map((stream) => stream.waitFor(1)));
    await modernCall(balanced, 'tools/call', { name: 'up__add-tool' });
    await Promise.all([...streams.map((stream) => stream.waitFor(2)), get.waitFor(1)]);
    for (const [index, stream] of streams.entries()) {
      expect(stream.events[1]?.message).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': `sub-${'ABC'[index]}` } },
      });
    }
    expect(get.events[0]?.message.method).toBe('notifications/tools/list_changed');
    for (const stream of [...streams, get]) stream.close();
  });

  it('a 2025-11-25 caller: the gateway on B asks for input, the answer POSTed through C reaches it', async () => {
    const session = new LegacySession(a.url);
    await session.initialize({ elicitation: { form: {} } });
    const call = await session.stream('tools/call', { name: 'up__greet', arguments: {} }, b.url);
    await call.waitFor(1);
    const asked = call.events[0]?.message as Message;
    expect(asked.method).toBe('elicitation/create');
    expect(await session.answer(asked.id, ANSWER('Eve'), c.url)).toBe(202);
    await call.waitFor(2);
    call.close();
    expect(textOf(call.events[1]?.message as Message)).toBe('Hello, Eve, from U');
  });

  it('the 2024-11-05 HTTP+SSE transport through the balanced gateways: every POST reaches the stream', async () => {
    const session = new SseTransportSession(balanced);
    await session.open();
    try {
      expect(await session.initialize()).toMatchObject({ result: { protocolVersion: '2024-11-05' } });
      for (let i = 0; i < 6; i++) {
        const { status, response } = await session.request('tools/call', { name: 'up__whoami' });
        expect(status).toBe(202);
        expect(textOf(response as Message)).toBe('U');
      }
    } finally {
      session.close();
    }
  });

  it('Redis down: calls needing shared state fail clearly, the others are served', async () => {
    const { requestState, key } = await firstRound(a.url);
    await redis.stop();
    try {
      for (let i = 0; i < 3; i++)
        expect(textOf(await modernCall(balanced, 'tools/call', { name: 'up__whoami' }))).toBe('U');
      const limited = await modernCall(b.url, 'tools/call', { name: 'up__memory' });
      expect(limited.error).toMatchObject({
        code: -32603,
        message: expect.stringContaining('Shared state unavailable'),
      });
      const retry = {
        name: 'up__greet',
        arguments: {},
        inputResponses: { [key]: ANSWER('Y') },
        requestState,
      };
      expect((await modernCall(b.url, 'tools/call', retry)).error).toMatchObject({
        code: -32603,
        message: expect.stringContaining('Shared state unavailable'),
      });
      const stranded = new LegacySession(c.url);
      stranded.sessionId = 'a-session-held-elsewhere';
      expect((await stranded.request('tools/call', { name: 'up__whoami' })).status).toBe(503);
    } finally {
      await redis.start();
    }
    // Back: once every instance hears the bus again, the round A held is still pending and continues via C.
    await until(
      async () => {
        const [, subscribers] = (await inspect.pubsub('NUMSUB', 'gw:gateway:all')) as [string, number];
        return subscribers === 3 ? true : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100, retryOnError: true },
    );
    const retry = { name: 'up__greet', arguments: {}, inputResponses: { [key]: ANSWER('Z') }, requestState };
    const done = await modernCall(c.url, 'tools/call', retry);
    expect(textOf(done)).toBe('Hello, Z, from U');
  }, 60_000);
});
