/**
 * Faults behind the gateway, with real upstream processes: one killed mid-call (and mid-listen), one that hangs,
 * and two whose tool names clash. Each fault stays with its server: the others keep serving, and the killed
 * one comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, eventually, lab, startGateway, textOf } from './support.js';

let running: Running;

beforeAll(async () => {
  running = await startGateway({
    alpha: lab('alpha'),
    beta: lab('beta'),
    slow: lab('slow', { timeoutMs: 1000 }),
    'x.y': lab('x.y'),
    x_y: lab('x_y'),
  });
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
});

describe('an upstream killed mid-call', () => {
  it.each([
    '2025-11-25',
    '2026-07-28',
  ])('fails the call in flight clearly (%s caller), the others go on, and it comes back', async (protocolVersion) => {
    const client = await running.connect({ protocolVersion });
    let changes = 0;
    client.on('toolsListChanged', () => changes++);
    await client.listChangesReady();
    const waiting = client.callTool({ name: 'alpha__wait', arguments: {} });
    await eventually(() => running.gateway.openRequests > 0 || undefined);
    const crash = client.callTool({ name: 'alpha__crash', arguments: {} });
    const [inFlight, crashed] = await Promise.all([waiting, crash]);
    for (const result of [inFlight, crashed]) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^upstream alpha: /);
    }
    // The other servers are unaffected.
    expect(textOf(await client.callTool({ name: 'beta__search', arguments: { query: 'on' } }))).toBe(
      'beta found: on',
    );
    // It is restarted: its tools leave and come back, and the caller hears of both.
    await eventually(async () => {
      const names = (await client.listTools()).map((tool) => tool.name);
      return (names.includes('alpha__search') && changes >= 2) || undefined;
    });
    expect(textOf(await client.callTool({ name: 'alpha__search', arguments: { query: 'back' } }))).toBe(
      'alpha found: back',
    );
    // Its list changes flow again after the restart (the upstream listen stream was opened anew).
    const before = changes;
    await client.callTool({ name: 'alpha__add_tool', arguments: {} });
    await eventually(() => changes > before || undefined);
    expect((await client.listTools()).map((tool) => tool.name)).toContain('alpha__extra_tool');
  }, 60_000);
});

describe('an upstream that hangs', () => {
  it('times out with a clear error while the others answer', async () => {
    const client = await running.connect();
    const started = Date.now();
    const [hung, other] = await Promise.all([
      client.callTool({ name: 'slow__wait', arguments: {} }),
      client.callTool({ name: 'beta__search', arguments: { query: 'meanwhile' } }),
    ]);
    expect(textOf(other)).toBe('beta found: meanwhile');
    expect(hung.isError).toBe(true);
    expect(textOf(hung)).toMatch(/^upstream slow: .*(timed out|timeout|within)/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(running.gateway.openRequests).toBe(0);
  });
});

describe('clashing names', () => {
  it('keeps both tools, reports the collision, and routes each to its server', async () => {
    const client = await running.connect();
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['x_y__search', 'x_y__search_2']));
    expect(running.gateway.collisions).toContainEqual(
      expect.objectContaining({ kind: 'tool', wanted: 'x_y__search', given: 'x_y__search_2' }),
    );
    const texts = await Promise.all(
      ['x_y__search', 'x_y__search_2'].map(async (name) =>
        textOf(await client.callTool({ name, arguments: { query: 'q' } })),
      ),
    );
    expect(texts.sort()).toEqual(['x.y found: q', 'x_y found: q']);
  });
});
