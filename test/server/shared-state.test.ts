/**
 * The core's shared-state interfaces with their in-memory defaults, two servers in one process standing in for
 * two instances over real HTTP: one EventBus, one requestState key ring (rotated), one OneTimeStateStore, one
 * SessionStore and EventStore. The same wiring the Redis backends plug into (test/redis runs it across
 * processes).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  InMemoryEventBus,
  InMemoryOneTimeStateStore,
  type Listening,
  McpServer,
  type McpServerOptions,
  listen,
} from '../../src/server/index.js';
import { InMemoryEventStore, InMemorySessionStore } from '../../src/transports/http/server/index.js';
import { LegacySession, modernCall, textOf } from '../redis/wire.js';

const K1 = { id: 'k1', secret: 'agentforge-key-one-0123456789' };
const K2 = { id: 'k2', secret: 'agentforge-key-two-0123456789' };
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((http) => http.close()));
});

async function instance(name: string, options: McpServerOptions, http: Parameters<typeof listen>[1] = {}) {
  const server = new McpServer({ name, version: '1' }, options);
  server.registerTool('whoami', {}, () => ({ content: [{ type: 'text', text: name }] }));
  server.registerTool('greet', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const reply = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' });
    return { content: [{ type: 'text', text: `Hello, ${reply.content?.name}, from ${name}` }] };
  });
  const listening = await listen(server, { keepAliveMs: 0, ...http });
  open.push(listening);
  return { server, url: listening.url };
}

const answer = { user_name: { action: 'accept', content: { name: 'Ada' } } };
const retry = (requestState: string) => ({
  name: 'greet',
  arguments: {},
  inputResponses: answer,
  requestState,
});
const minted = async (url: string) =>
  (await modernCall(url, 'tools/call', { name: 'greet', arguments: {} })).result.requestState as string;

describe('shared state with the in-memory backends', () => {
  it('a key ring names its key; a rotated ring opens older states; a one-time state opens once', async () => {
    const oneTime = new InMemoryOneTimeStateStore();
    const before = await instance('A', { requestState: { keys: { current: K1 }, oneTime } });
    const after = await instance('B', { requestState: { keys: { current: K2, previous: [K1] }, oneTime } });
    const unrelated = await instance('C', { requestState: { keys: { current: K2 } } });
    const state = await minted(before.url);
    expect(state.startsWith('v2.k1.')).toBe(true);
    expect(textOf(await modernCall(after.url, 'tools/call', retry(state)))).toBe('Hello, Ada, from B');
    const replayed = await modernCall(before.url, 'tools/call', retry(state));
    expect(replayed.error).toMatchObject({ code: -32602, message: 'Invalid requestState' });
    // Without k1 in its ring, a state sealed with it is a forgery.
    const refused = await modernCall(unrelated.url, 'tools/call', retry(await minted(before.url)));
    expect(refused.error).toMatchObject({ message: 'Invalid requestState' });
    // States minted before the rotation open only until they expire.
    const brief = await instance('D', { requestState: { keys: { current: K1 }, ttlMs: 150 } });
    const rotated = await instance('E', { requestState: { keys: { current: K2, previous: [K1] } } });
    const fresh = await minted(brief.url);
    expect(textOf(await modernCall(rotated.url, 'tools/call', retry(fresh)))).toBe('Hello, Ada, from E');
    const expiring = await minted(brief.url);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const expired = await modernCall(rotated.url, 'tools/call', retry(expiring));
    expect(expired.error).toMatchObject({ message: 'Invalid requestState' });
    expect(
      () =>
        new McpServer(
          { name: 'x', version: '1' },
          { requestState: { keys: { current: { id: 'a b', secret: K1.secret } } } },
        ),
    ).toThrow(RangeError);
  });

  it('a notify on one server reaches a session held by the other through a shared bus', async () => {
    const eventBus = new InMemoryEventBus();
    const sessionStore = new InMemorySessionStore();
    const eventStore = new InMemoryEventStore();
    const a = await instance('A', { eventBus }, { sessionStore, eventStore });
    const b = await instance('B', { eventBus }, { sessionStore, eventStore });
    const session = new LegacySession(a.url);
    await session.initialize();
    const onB = await session.request('tools/call', { name: 'whoami' }, b.url);
    expect(textOf(onB.message as Record<string, unknown>)).toBe('B');
    const stream = await session.openGet(a.url);
    a.server.registerTool('late', {}, () => ({ content: [] }));
    await stream.waitFor(1);
    stream.close();
    b.server.registerTool('later', {}, () => ({ content: [] }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const resumed = await session.openGet(b.url, stream.events[0]?.id);
    await resumed.waitFor(1);
    resumed.close();
    expect(resumed.events.map((event) => event.message.method)).toEqual(['notifications/tools/list_changed']);
    // An unknown session is unknown everywhere.
    const stranger = new LegacySession(b.url);
    stranger.sessionId = 'no-such-session';
    expect((await stranger.request('tools/call', { name: 'whoami' })).status).toBe(404);
  });
});
