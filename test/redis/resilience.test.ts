/**
 * The shared state under stress, with real processes: a redis-server restarted mid-run (append-only file on)
 * while three instances serve behind haproxy, and 1,000 listen streams held by one instance.
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
  startCluster,
  stopAll,
  until,
} from './harness.js';
import { LegacySession, type SseStream, listen, modernCall, textOf } from './wire.js';

let redis: RedisProcess;
let a: Instance;
let b: Instance;
let c: Instance;
let balanced: string;

/** Calls fail while Redis restarts: a probe that throws is tried again, for a little longer. */
function recovered<T>(probe: () => Promise<T | undefined>): Promise<T> {
  return until(probe, { timeoutMs: 15_000, intervalMs: 50, retryOnError: true });
}

async function heapUsed(instance: Instance): Promise<number> {
  const usage = JSON.parse(textOf(await modernCall(instance.url, 'tools/call', { name: 'memory' })));
  return usage.heapUsed as number;
}

if (!REDIS_SERVER) console.warn(`skipping test/redis/resilience.test.ts: ${NO_REDIS}`);

describe.skipIf(!REDIS_SERVER)('shared state under stress', () => {
  beforeAll(async () => {
    ({
      redis,
      instances: [a, b, c],
      balanced,
    } = await startCluster({ persistent: true }));
  }, 60_000);

  afterAll(() => stopAll());

  it('Redis down and back mid-run: clear errors meanwhile, listen streams re-subscribe, tasks survive, stateless calls never fail', async () => {
    const stream = await listen(b.url, 'sub-restart', { resourceSubscriptions: ['file:///r'] });
    await stream.waitFor(1);
    const capabilities = withTasksCapability({ elicitation: { form: {} } });
    await using clientA = await McpClient.connect(a.url, { capabilities });
    const started = await new TasksClient(clientA).start({ name: 'interview' });
    if (!('task' in started)) throw new Error('interview did not become a task');
    const { taskId } = started.task;

    let calls = 0;
    const failures: string[] = [];
    let running = true;
    const load = (async () => {
      while (running) {
        const answer = await modernCall(balanced, 'tools/call', { name: 'whoami' }).catch(
          (error: unknown) => ({ error: String(error) }),
        );
        calls++;
        if (!('result' in answer)) failures.push(JSON.stringify(answer));
      }
    })();

    await new Promise((resolve) => setTimeout(resolve, 200));
    const minted = await modernCall(a.url, 'tools/call', { name: 'greet', arguments: {} });
    await redis.stop();
    // While Redis is away, what needs it fails clearly: a session this instance must look up, a one-time state.
    const stranded = new LegacySession(c.url);
    stranded.sessionId = 'a-session-held-elsewhere';
    const lookup = await stranded.request('tools/call', { name: 'whoami' });
    expect(lookup.status).toBe(503);
    expect(String(lookup.message)).toContain('session store cannot be reached');
    const inputResponses = { user_name: { action: 'accept', content: { name: 'Ada' } } };
    const claim = await modernCall(b.url, 'tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses,
      requestState: minted.result.requestState,
    });
    expect(claim.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('Shared state unavailable'),
    });
    await redis.start();
    // Once the instances are back on Redis, a notify on A reaches B's stream again, on the same subscription.
    await recovered(async () => {
      await modernCall(a.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///r' } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      return stream.events.length > 1 ? true : undefined;
    });
    running = false;
    await load;
    stream.close();
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(10);
    expect(stream.events[1]?.message).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'file:///r', _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-restart' } },
    });

    // The task outlived the restart (append-only file) and still reaches the handler running on A.
    await using clientC = await McpClient.connect(c.url, { capabilities });
    const tasks = new TasksClient(clientC);
    const asking = await recovered(async () => {
      const task = await tasks.get(taskId);
      return task.status === 'input_required' ? task : undefined;
    });
    const [key] = Object.keys(asking.inputRequests ?? {});
    await tasks.update(taskId, { [key as string]: { action: 'accept', content: { name: 'Barbara' } } });
    const done = await recovered(async () => {
      const task = await tasks.get(taskId);
      return task.status === 'completed' ? task : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ text: 'Barbara answered, task ran on A' }] });
  }, 60_000);

  it('1,000 listen streams on one instance: bounded memory, one Redis subscription, all notified', async () => {
    const before = await heapUsed(b);
    const streams: SseStream[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const opened = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          listen(b.url, `many-${batch * 100 + i}`, { resourceSubscriptions: ['file:///many'] }),
        ),
      );
      streams.push(...opened);
    }
    await Promise.all(streams.map((stream) => stream.waitFor(1, 30_000)));
    const held = await heapUsed(b);
    // What 1,000 open streams cost the instance, HTTP connections included: under 20 KiB each (about 12 KiB
    // measured).
    expect(held - before).toBeLessThan(1000 * 20 * 1024);
    const inspect = new Redis({ port: redis.port, host: '127.0.0.1' });
    try {
      // The bus holds one channel per instance, however many streams listen.
      const [, subscribers] = (await inspect.pubsub('NUMSUB', 'agentforge:events')) as [string, number];
      expect(subscribers).toBe(3);
    } finally {
      inspect.disconnect();
    }
    await modernCall(a.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///many' } });
    await Promise.all(streams.map((stream) => stream.waitFor(2, 30_000)));
    for (const [index, stream] of streams.entries()) {
      expect(stream.events[1]?.message.params).toEqual({
        uri: 'file:///many',
        _meta: { 'io.modelcontextprotocol/subscriptionId': `many-${index}` },
      });
    }
    for (const stream of streams) stream.close();
    // Closed streams leave nothing behind: the heap comes back to where it was (a few MB of slack).
    const released = await recovered(async () => {
      const heap = await heapUsed(b);
      return heap - before < 3 * 1024 * 1024 ? heap : undefined;
    });
    expect(released - before).toBeLessThan(3 * 1024 * 1024);
  }, 120_000);
});
