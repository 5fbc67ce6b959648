/**
 * The in-memory defaults of the shared-state interfaces on their own: bounded, expiring, and telling watchers.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryOneTimeStateStore } from '../../src/server/index.js';
import { InMemoryEventStore, InMemorySessionStore } from '../../src/transports/http/server/index.js';

describe('in-memory shared-state defaults', () => {
  it('claims a one-time state once, and refuses rather than forgets when full of live claims', async () => {
    const store = new InMemoryOneTimeStateStore({ maxEntries: 2 });
    const later = Date.now() + 60_000;
    expect(await store.claim('a', later)).toBe(true);
    expect(await store.claim('a', later)).toBe(false);
    expect(await store.claim('gone', Date.now() - 1)).toBe(true);
    // Full: the expired claim makes room, a third live one does not fit.
    expect(await store.claim('b', later)).toBe(true);
    expect(await store.claim('c', later)).toBe(false);
    expect(store.size).toBe(2);
  });

  it('keeps the last maxEvents of a stream and replays after a sequence number', async () => {
    const events = new InMemoryEventStore();
    for (let seq = 1; seq <= 20; seq++) {
      await events.append('s', 'g1', { seq, message: String(seq) }, { maxEvents: 5, ttlMs: 1000 });
    }
    expect((await events.replay('s', 'g1', 0)).map((event) => event.seq)).toEqual([16, 17, 18, 19, 20]);
    expect((await events.replay('s', 'g1', 18)).map((event) => event.message)).toEqual(['19', '20']);
    await events.deleteSession('s');
    expect(await events.replay('s', 'g1', 0)).toEqual([]);
  });

  it('expires sessions, reports a touch on a missing one, and tells watchers of each set', async () => {
    const sessions = new InMemorySessionStore();
    const record = { protocolVersion: '2025-11-25', clientCapabilities: {} };
    let changes = 0;
    const unwatch = sessions.watch('s1', () => changes++);
    await sessions.set('s1', record, 40);
    expect(await sessions.touch('s1', 40)).toBe(true);
    await sessions.set('s1', { ...record, logLevel: 'error' }, 40);
    unwatch();
    await sessions.set('s1', record, 40);
    expect(changes).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await sessions.get('s1')).toBeUndefined();
    expect(await sessions.touch('s1', 40)).toBe(false);
  });

  it('updates a session atomically: concurrent changes all land, watchers hear each, a gone session stays gone', async () => {
    const store = new InMemorySessionStore();
    await store.set('s', { protocolVersion: '2025-11-25', clientCapabilities: {} }, 60_000);
    let heard = 0;
    store.watch('s', () => heard++);
    await Promise.all(
      ['a', 'b', 'c'].map((uri) =>
        store.update(
          's',
          (record) => ({ ...record, resourceSubscriptions: [...(record.resourceSubscriptions ?? []), uri] }),
          60_000,
        ),
      ),
    );
    expect((await store.get('s'))?.resourceSubscriptions).toEqual(['a', 'b', 'c']);
    expect(heard).toBe(3);
    const same = await store.update('s', (record) => record, 60_000);
    expect(same?.resourceSubscriptions).toEqual(['a', 'b', 'c']);
    expect(heard).toBe(3);
    expect(
      await store.update('missing', (record) => ({ ...record, logLevel: 'debug' }), 60_000),
    ).toBeUndefined();
    expect(await store.get('missing')).toBeUndefined();
  });
});
