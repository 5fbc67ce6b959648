/**
 * Three agentforge server processes sharing their state through a real redis-server, behind a real haproxy
 * balancing round robin: what one instance starts, another continues. 2026-07-28 listen streams receive
 * notifications raised anywhere (acknowledged first, filtered, tagged with their subscription id);
 * requestState sealed on one instance opens on another, once; tasks move between instances and fail, not
 * vanish, when their instance dies; a 2025-11-25 session continues through every instance and its GET stream
 * resumes with Last-Event-ID on another.
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
  startCluster,
  startInstance,
  stopAll,
  until,
} from './harness.js';
import {
  LegacySession,
  type Message,
  SUBSCRIPTION_ID,
  SseTransportSession,
  listen,
  modernCall,
  textOf,
} from './wire.js';

let redis: RedisProcess;
let a: Instance;
let b: Instance;
let c: Instance;
let balanced: string;
let inspect: Redis;

if (!REDIS_SERVER) console.warn(`skipping test/redis/scale-out.test.ts: ${NO_REDIS}`);

describe.skipIf(!REDIS_SERVER)('scale-out through Redis (3 instances behind haproxy)', () => {
  beforeAll(async () => {
    ({
      redis,
      instances: [a, b, c],
      balanced,
    } = await startCluster());
    inspect = new Redis({ port: redis.port, host: '127.0.0.1' });
  }, 60_000);

  afterAll(async () => {
    inspect?.disconnect();
    await stopAll();
  });

  it('the balancer spreads stateless calls over the three instances', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 6; i++)
      names.add(textOf(await modernCall(balanced, 'tools/call', { name: 'whoami' })));
    expect([...names].sort()).toEqual(['A', 'B', 'C']);
  });

  it('a notify on A reaches a listen stream held by B: acknowledged first, filtered, tagged', async () => {
    // Before the stream exists: never replayed to it.
    await modernCall(a.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///watched' } });
    const stream = await listen(b.url, 'sub-b', {
      resourceSubscriptions: ['file:///watched'],
      toolsListChanged: true,
    });
    await stream.waitFor(1);
    expect(stream.events[0]?.message).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 'sub-b' } },
    });
    await modernCall(a.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///other' } });
    await modernCall(a.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///watched' } });
    await modernCall(c.url, 'tools/call', { name: 'add-tool' });
    await stream.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.close();
    expect(stream.events.slice(1).map((event) => event.message)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'file:///watched', _meta: { [SUBSCRIPTION_ID]: 'sub-b' } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 'sub-b' } },
      },
    ]);
  });

  it('requestState sealed on A opens on B, and replayed on C is refused', async () => {
    const first = await modernCall(a.url, 'tools/call', { name: 'greet', arguments: {} });
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const requestState = first.result.requestState as string;
    expect(requestState.startsWith('v2.k1.')).toBe(true);
    const answer = { user_name: { action: 'accept', content: { name: 'Ada' } } };
    const retry = { name: 'greet', arguments: {}, inputResponses: answer, requestState };
    expect(textOf(await modernCall(b.url, 'tools/call', retry))).toBe('Hello, Ada, from B');
    const replay = await modernCall(c.url, 'tools/call', retry);
    expect(replay.error).toMatchObject({ code: -32602, message: 'Invalid requestState' });
    // The claim lives in Redis only as long as the state would.
    const claims = await inspect.keys('agentforge:state:*');
    expect(claims.length).toBeGreaterThan(0);
    for (const key of claims) expect(await inspect.pttl(key)).toBeGreaterThan(0);
  });

  it('a rotated key ring still opens states sealed before the rotation', async () => {
    const rotated = await startInstance('D', redis.port, [
      '--keys',
      'k2:agentforge-rotated-key-abcdef0123,k1:agentforge-shared-key-0123456789',
    ]);
    const stranger = await startInstance('E', redis.port, ['--keys', 'k9:agentforge-other-key-abcdef01234']);
    try {
      const answer = { user_name: { action: 'accept', content: { name: 'Grace' } } };
      const minted = async (url: string) =>
        (await modernCall(url, 'tools/call', { name: 'greet', arguments: {} })).result.requestState as string;
      const old = await minted(a.url);
      const retry = (state: string) => ({
        name: 'greet',
        arguments: {},
        inputResponses: answer,
        requestState: state,
      });
      expect(textOf(await modernCall(rotated.url, 'tools/call', retry(old)))).toBe('Hello, Grace, from D');
      const fresh = await minted(rotated.url);
      expect(fresh.startsWith('v2.k2.')).toBe(true);
      // An instance whose ring lacks the key: refused like any forgery.
      expect((await modernCall(stranger.url, 'tools/call', retry(await minted(a.url)))).error).toMatchObject({
        message: 'Invalid requestState',
      });
    } finally {
      await Promise.all([kill(rotated.child), kill(stranger.child)]);
    }
  });

  it('a task created through A is polled through B and answered through C', async () => {
    const capabilities = withTasksCapability({ elicitation: { form: {} } });
    const connect = (url: string) => McpClient.connect(url, { capabilities });
    await using clientA = await connect(a.url);
    await using clientB = await connect(b.url);
    await using clientC = await connect(c.url);
    const started = await new TasksClient(clientA).start({ name: 'interview' });
    if (!('task' in started)) throw new Error('interview did not become a task');
    const { taskId } = started.task;
    const polled = new TasksClient(clientB);
    const asking = await until(async () => {
      const task = await polled.get(taskId);
      return task.status === 'input_required' ? task : undefined;
    });
    const [key] = Object.keys(asking.inputRequests ?? {});
    await new TasksClient(clientC).update(taskId, {
      [key as string]: { action: 'accept', content: { name: 'Linus' } },
    });
    const done = await until(async () => {
      const task = await polled.get(taskId);
      return task.status === 'completed' ? task : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Linus answered, task ran on A' }] });
    expect(await inspect.pttl(`agentforge:task:${taskId}`)).toBeGreaterThan(0);
  });

  it('killing the instance running a task marks the task failed', async () => {
    const doomed = await startInstance('F', redis.port);
    await using clientF = await McpClient.connect(doomed.url, { capabilities: withTasksCapability() });
    const started = await new TasksClient(clientF).start({ name: 'work', arguments: { ms: 60_000 } });
    if (!('task' in started)) throw new Error('work did not become a task');
    await kill(doomed.child, 'SIGKILL');
    await using clientB = await McpClient.connect(b.url, { capabilities: withTasksCapability() });
    const polled = new TasksClient(clientB);
    expect((await polled.get(started.task.taskId)).status).toBe('working');
    const failed = await until(async () => {
      const task = await polled.get(started.task.taskId);
      return task.status === 'failed' ? task : undefined;
    });
    expect(failed.error).toMatchObject({ message: 'the server instance running this task stopped' });
  });

  it('a task that expires in Redis while its handler runs: the handler is told (its signal aborts)', async () => {
    const short = await startInstance('G', redis.port, ['--task-ttl-ms', '600']);
    try {
      await using client = await McpClient.connect(short.url, { capabilities: withTasksCapability() });
      const started = await new TasksClient(client).start({ name: 'abortable' });
      if (!('task' in started)) throw new Error('abortable did not become a task');
      expect(textOf(await modernCall(short.url, 'tools/call', { name: 'aborted' }))).toBe('0');
      await until(async () => {
        const aborted = textOf(await modernCall(short.url, 'tools/call', { name: 'aborted' }));
        return aborted === '1' ? true : undefined;
      });
      expect(await inspect.exists(`agentforge:task:${started.task.taskId}`)).toBe(0);
    } finally {
      await kill(short.child);
    }
  });

  it('a 2025-11-25 session initialized through the balancer continues through every instance, until deleted', async () => {
    const session = new LegacySession(balanced);
    const init = await session.initialize();
    expect(init.result).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(session.sessionId).not.toBe('');
    const names = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const { status, message } = await session.request('tools/call', { name: 'whoami' });
      expect(status).toBe(200);
      names.add(textOf(message as Record<string, unknown>));
    }
    expect([...names].sort()).toEqual(['A', 'B', 'C']);
    expect(await inspect.pttl(`agentforge:session:{${session.sessionId}}`)).toBeGreaterThan(0);
    // Terminated through one instance: unknown to the others that never held it.
    const ended = await fetch(balanced, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(ended.status).toBe(200);
    expect(await inspect.exists(`agentforge:session:{${session.sessionId}}`)).toBe(0);
    // The other instances' copies learn it on their next check of the store (at most a second apart).
    await until(async () => {
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await session.request('tools/call', { name: 'whoami' })).status);
      return statuses.every((status) => status === 404) ? true : undefined;
    });
  });

  it('a 2025-11-25 elicitation asked by B and answered through C reaches the handler on B', async () => {
    const session = new LegacySession(a.url);
    await session.initialize({ elicitation: { form: {} } });
    const call = await session.stream('tools/call', { name: 'greet', arguments: {} }, b.url);
    await call.waitFor(1);
    const asked = call.events[0]?.message as Message;
    expect(asked.method).toBe('elicitation/create');
    expect(typeof asked.id).toBe('string');
    // An answer relayed for another principal is dropped by B; the session's own, POSTed through C, is taken.
    const [tag] = String(asked.id).split('.');
    const forged = {
      jsonrpc: '2.0',
      id: asked.id,
      result: { action: 'accept', content: { name: 'Mallory' } },
    };
    const channel = `agentforge:session:{${session.sessionId}/${tag}}:messages`;
    expect(await inspect.publish(channel, JSON.stringify({ principal: 'mallory', message: forged }))).toBe(1);
    expect(await session.answer(asked.id, { action: 'accept', content: { name: 'Ada' } }, c.url)).toBe(202);
    await call.waitFor(2);
    call.close();
    expect(textOf(call.events[1]?.message as Message)).toBe('Hello, Ada, from B');
  });

  it('resources/subscribe through B is honoured on the GET stream the session holds on C', async () => {
    const session = new LegacySession(a.url);
    await session.initialize();
    const stream = await session.openGet(c.url);
    expect(stream.response.status).toBe(200);
    const subscribed = await session.request('resources/subscribe', { uri: 'file:///sub' }, b.url);
    expect(subscribed.status).toBe(200);
    await until(async () => {
      await modernCall(a.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///sub' } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      return stream.events.length > 0 ? true : undefined;
    });
    await session.request('resources/unsubscribe', { uri: 'file:///sub' }, a.url);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const heard = stream.events.length;
    await modernCall(b.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///sub' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.close();
    expect(stream.events[0]?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'file:///sub' },
    });
    // Unsubscribed through A: C's copy follows, nothing more arrives.
    expect(stream.events.length).toBe(heard);
  });

  it('resources/subscribe through A and B at the same moment: the session keeps every subscription', async () => {
    const session = new LegacySession(a.url);
    await session.initialize();
    const uris = Array.from({ length: 16 }, (_, i) => `file:///both-${i}`);
    const answers = await Promise.all(
      uris.map((uri, i) => session.request('resources/subscribe', { uri }, i % 2 === 0 ? a.url : b.url)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(uris.map(() => 200));
    // Recorded just after each answer: wait until the writes are in (a lost one would never come).
    const key = `agentforge:session:{${session.sessionId}}`;
    const read = async () => JSON.parse((await inspect.hget(key, 'record')) ?? '{}');
    await until(
      async () => ((await read()).resourceSubscriptions?.length === uris.length ? true : undefined),
      {
        timeoutMs: 3000,
      },
    ).catch(() => undefined);
    expect([...(await read()).resourceSubscriptions].sort()).toEqual([...uris].sort());
  });

  it('the 2024-11-05 HTTP+SSE transport behind round robin: POSTs on any instance reach the stream', async () => {
    const session = new SseTransportSession(balanced);
    await session.open();
    try {
      expect(await session.initialize()).toMatchObject({ result: { protocolVersion: '2024-11-05' } });
      const names = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const { status, response } = await session.request('tools/call', { name: 'whoami' });
        expect(status).toBe(202);
        names.add(textOf(response as Message));
      }
      // Every call ran on the instance holding the stream, wherever its POST landed.
      expect(names.size).toBe(1);
      // A message relayed for another principal is dropped by the instance holding the stream; its own is served.
      const channel = `agentforge:session:{${session.sessionId}}:messages`;
      const ping = (id: number, principal: string | null) =>
        inspect.publish(
          channel,
          JSON.stringify({ principal, message: { jsonrpc: '2.0', id, method: 'ping' } }),
        );
      expect(await ping(9001, 'mallory')).toBe(1);
      await ping(9002, null);
      await until(async () => (session.messages.some((m) => m.id === 9002) ? true : undefined));
      expect(session.messages.some((m) => m.id === 9001)).toBe(false);
      // Each instance accepts the POST: through A, B and C directly, answered on the one stream.
      for (const instance of [a, b, c])
        expect(
          await session.post({ method: 'notifications/initialized' }, new URL(instance.url).origin),
        ).toBe(202);
    } finally {
      session.close();
    }
    // Once the stream is gone, no instance holds the session.
    await until(async () => ((await session.post({ method: 'ping', id: 1 })) === 404 ? true : undefined));
  });

  it('a dropped GET stream resumes with Last-Event-ID on another instance without losing events', async () => {
    const session = new LegacySession(a.url);
    await session.initialize();
    const first = await session.openGet(a.url);
    await modernCall(c.url, 'tools/call', { name: 'add-tool' });
    await first.waitFor(1);
    first.close();
    const lastEventId = first.events[0]?.id as string;
    expect(first.events[0]?.message.method).toBe('notifications/tools/list_changed');
    // Sent while nobody listens: A keeps it for the session, in Redis.
    await modernCall(c.url, 'tools/call', { name: 'notify', arguments: { uri: 'file:///x' } });
    await modernCall(c.url, 'tools/call', { name: 'add-tool' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const resumed = await session.openGet(b.url, lastEventId);
    expect(resumed.response.status).toBe(200);
    await resumed.waitFor(1);
    await modernCall(a.url, 'tools/call', { name: 'add-tool' });
    await resumed.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    resumed.close();
    const methods = resumed.events.map((event) => event.message.method);
    expect(methods).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
    // The missed one came from A's stream (its id names it), the live one from B's.
    const [missed, live] = resumed.events.map((event) => event.id as string);
    expect(missed?.split('_')[0]).toBe(lastEventId.split('_')[0]);
    expect(live?.split('_')[0]).not.toBe(lastEventId.split('_')[0]);
    const stream = `agentforge:session:{${session.sessionId}}:stream:${lastEventId.split('_')[0]}`;
    expect(await inspect.xlen(stream)).toBeGreaterThanOrEqual(2);
    expect(await inspect.pttl(stream)).toBeGreaterThan(0);
  });
});
