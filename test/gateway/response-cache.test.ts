/**
 * The gateway's response cache of forwarded resources/read, over real HTTP with real bearer tokens, in front
 * of a real upstream whose reads count themselves and carry 2026-07-28 hints: a public read is fetched once
 * for every principal, a private one once per principal, an entry expires with its ttlMs, ttlMs 0 or an
 * earlier-revision upstream is never cached, an upstream's resources/updated makes the cached read stale at
 * once, and a cached answer still passes the rate limits first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpClient } from '../../src/client/client.js';
import { type GatewayAuditEntry, RATE_LIMITED } from '../../src/gateway/governance.js';
import { InMemoryResponseCache } from '../../src/gateway/response-cache.js';
import type { Listening } from '../../src/server/http.js';
import { McpServer } from '../../src/server/server.js';
import { type Running, startGateway, type TestIssuer, testIssuer } from './support.js';

let issuer: TestIssuer;
let running: Running;
let modern: Listening;
let legacy: Listening;
let own: Listening;
let modernServer: McpServer;
const reads = new Map<string, number>();
const audit: GatewayAuditEntry[] = [];

/** An upstream whose every resource says how often it was read; each with its own hints. */
function countingUpstream(): McpServer {
  // Public by default, so that each resource's own scope is what its reads say.
  const server = new McpServer(
    { name: 'counting', version: '1.0.0' },
    { cache: { ttlMs: 0, cacheScope: 'public' } },
  );
  const resource = (name: string, hints: { ttlMs?: number; cacheScope?: 'public' | 'private' }) =>
    server.registerResource(name, `count://${name}`, { mimeType: 'text/plain', ...hints }, (uri) => {
      const n = (reads.get(name) ?? 0) + 1;
      reads.set(name, n);
      return { contents: [{ uri, mimeType: 'text/plain', text: `${name} read ${n}` }] };
    });
  resource('public', { ttlMs: 60_000, cacheScope: 'public' });
  resource('private', { ttlMs: 60_000, cacheScope: 'private' });
  resource('brief', { ttlMs: 400, cacheScope: 'public' });
  resource('stale', { ttlMs: 0, cacheScope: 'public' });
  resource('limited', { ttlMs: 60_000, cacheScope: 'public' });
  resource('changing', { ttlMs: 60_000, cacheScope: 'public' });
  // A read that depends on the caller's answer: its hints say public, but no cache key holds the answer.
  server.registerResource(
    'asking',
    'count://asking',
    { mimeType: 'text/plain', ttlMs: 60_000, cacheScope: 'public' },
    async (uri, context) => {
      const answer = await context.elicit({
        message: 'City?',
        requestedSchema: { type: 'object', properties: { city: { type: 'string' } } },
      });
      const n = (reads.get('asking') ?? 0) + 1;
      reads.set('asking', n);
      return { contents: [{ uri, mimeType: 'text/plain', text: `${String(answer.content?.city)} ${n}` }] };
    },
  );
  return server;
}

const token = (subject: string) => issuer.token(subject, running.url);

const as = async (subject: string): Promise<McpClient> =>
  running.connect({ cache: false, headers: { authorization: `Bearer ${await token(subject)}` } });

const read = async (client: McpClient, uri: string) =>
  ((await client.readResource({ uri })).contents[0] as { text: string }).text;

beforeAll(async () => {
  issuer = await testIssuer();
  modernServer = countingUpstream();
  modern = await modernServer.listen();
  legacy = await countingUpstream().listen();
  own = await countingUpstream().listen();
  running = await startGateway(
    {
      up: { url: modern.url },
      // An earlier revision's upstream: its reads carry no hints, so none is cached.
      old: { url: legacy.url, protocolVersion: '2025-11-25' },
      // Reached with each caller's own credentials: its reads are that caller's, whatever their scope says.
      own: { url: own.url },
    },
    {
      perPrincipal: ['own'],
      upstreamCredentials: (principal) => ({ headers: { 'x-principal': encodeURIComponent(principal) } }),
      rateLimits: { tools: { 'up+count://limited': { capacity: 1, refillPerSecond: 0.001 } } },
      audit: (entry) => {
        audit.push(entry);
      },
    },
    {
      auth: (url) => issuer.guard(url),
    },
  );
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
  await modern?.close();
  await legacy?.close();
  await own?.close();
});

describe('the response cache of forwarded resources/read', () => {
  it('serves a public read to every principal from one upstream read, and audits the cached answers', async () => {
    const [alice, bob] = await Promise.all([as('alice'), as('bob')]);
    expect(await read(alice, 'up+count://public')).toBe('public read 1');
    expect(await read(bob, 'up+count://public')).toBe('public read 1');
    expect(await read(alice, 'up+count://public')).toBe('public read 1');
    expect(reads.get('public')).toBe(1);
    const entries = audit.filter((entry) => entry.name === 'up+count://public');
    expect(entries.map((entry) => [entry.principal?.split('\u0000')[1], entry.status, entry.cached])).toEqual(
      [
        ['alice', 'ok', undefined],
        ['bob', 'ok', true],
        ['alice', 'ok', true],
      ],
    );
  });

  it('keeps a private read per principal: never served to another', async () => {
    const [alice, bob] = await Promise.all([as('alice'), as('bob')]);
    expect(await read(alice, 'up+count://private')).toBe('private read 1');
    expect(await read(bob, 'up+count://private')).toBe('private read 2');
    expect(await read(alice, 'up+count://private')).toBe('private read 1');
    expect(await read(bob, 'up+count://private')).toBe('private read 2');
    expect(reads.get('private')).toBe(2);
  });

  it('reads again once the ttlMs has passed', async () => {
    const alice = await as('alice');
    expect(await read(alice, 'up+count://brief')).toBe('brief read 1');
    expect(await read(alice, 'up+count://brief')).toBe('brief read 1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await read(alice, 'up+count://brief')).toBe('brief read 2');
  });

  it("drops a cached read as soon as the upstream notifies the resource's update", async () => {
    const [alice, bob] = await Promise.all([as('alice'), as('bob')]);
    expect(await read(alice, 'up+count://changing')).toBe('changing read 1');
    expect(await read(bob, 'up+count://changing')).toBe('changing read 1');
    // The gateway subscribes upstream to what it lists; the update reaches it on that subscription.
    const relayed = new Promise<void>((resolve) => bob.on('resourceUpdated', () => resolve()));
    await bob.subscribe({ resourceSubscriptions: ['up+count://changing'] }, () => {});
    modernServer.notifyResourceUpdated('count://changing');
    await relayed;
    expect(await read(alice, 'up+count://changing')).toBe('changing read 2');
    expect(await read(bob, 'up+count://changing')).toBe('changing read 2');
    expect(reads.get('changing')).toBe(2);
  });

  it.each([
    ['2026-07-28', 'Paris'],
    ['2025-11-25', 'Oslo'],
  ])('never caches a read that asked a %s caller for input', async (protocolVersion, city) => {
    const client = await running.connect({
      cache: false,
      protocolVersion,
      headers: { authorization: `Bearer ${await token('dora')}` },
      handlers: { elicitation: async () => ({ action: 'accept', content: { city } }) },
    });
    const before = reads.get('asking') ?? 0;
    expect(await read(client, 'up+count://asking')).toBe(`${city} ${before + 1}`);
    expect(await read(client, 'up+count://asking')).toBe(`${city} ${before + 2}`);
  });

  it('never caches ttlMs 0, nor an earlier-revision upstream read', async () => {
    const alice = await as('alice');
    expect(await read(alice, 'up+count://stale')).toBe('stale read 1');
    expect(await read(alice, 'up+count://stale')).toBe('stale read 2');
    const before = reads.get('public') ?? 0;
    expect(await read(alice, 'old+count://public')).toBe(`public read ${before + 1}`);
    expect(await read(alice, 'old+count://public')).toBe(`public read ${before + 2}`);
  });

  it("keeps a per-principal server's reads per principal even when they say public", async () => {
    const [alice, bob] = await Promise.all([as('alice'), as('bob')]);
    const before = reads.get('public') ?? 0;
    expect(await read(alice, 'own+count://public')).toBe(`public read ${before + 1}`);
    expect(await read(bob, 'own+count://public')).toBe(`public read ${before + 2}`);
    expect(await read(alice, 'own+count://public')).toBe(`public read ${before + 1}`);
    expect(reads.get('public')).toBe(before + 2);
  });

  it('refuses a rate-limited caller even when the answer is cached', async () => {
    const [alice, carol] = await Promise.all([as('alice'), as('carol')]);
    expect(await read(alice, 'up+count://limited')).toBe('limited read 1');
    expect(await read(carol, 'up+count://limited')).toBe('limited read 1');
    await expect(carol.readResource({ uri: 'up+count://limited' })).rejects.toMatchObject({
      code: RATE_LIMITED,
    });
    expect(reads.get('limited')).toBe(1);
    const last = audit.filter((entry) => entry.name === 'up+count://limited').at(-1);
    expect(last).toMatchObject({ status: 'rate_limited', isError: true });
  });
});

describe('InMemoryResponseCache', () => {
  it('gives the remaining ttl, and evicts the least recently used past its entry and byte bounds', async () => {
    const cache = new InMemoryResponseCache({ maxEntries: 2, maxBytes: 100, maxEntryBytes: 60 });
    await cache.set('a', 'x'.repeat(10), 1000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const hit = await cache.get('a');
    expect(hit?.value).toBe('x'.repeat(10));
    expect(hit?.ttlMs).toBeLessThanOrEqual(975);
    expect(hit?.ttlMs).toBeGreaterThan(0);
    await cache.set('b', 'y', 1000);
    await cache.get('a');
    await cache.set('c', 'z', 1000);
    // b was used least recently: two entries at most.
    expect([await cache.get('a'), await cache.get('b')].map((entry) => entry?.value)).toEqual([
      'x'.repeat(10),
      undefined,
    ]);
    await cache.set('big', 'w'.repeat(59), 1000);
    expect(await cache.get('big')).toBeUndefined();
    await cache.set('d', 'v'.repeat(50), 1000);
    await cache.set('e', 'u'.repeat(50), 1000);
    expect(cache.bytes).toBeLessThanOrEqual(100);
    expect(await cache.get('d')).toBeUndefined();
    await cache.set('zero', 'q', 0);
    expect(await cache.get('zero')).toBeUndefined();
  });
});
