/**
 * 2026-07-28 caching hints (`ttlMs`, `cacheScope`) carried from an upstream through the gateway, never
 * widened: lists and reads keep what the upstream said, a list filtered per caller is private, an upstream of
 * an earlier revision (no hints) gives private results stale at once, and 2025 callers see no hints at all.
 */
import { describe, expect, it } from 'vitest';
import type { McpClient } from '../../src/client/client.js';
import { ROOT, startGateway } from './support.js';

const CACHE = `${ROOT}test/gateway/fixtures/cache-server.mjs`;
const upstream = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [CACHE],
  ...extra,
});

async function hints(client: McpClient) {
  const pick = (result: object) => {
    const { ttlMs, cacheScope } = result as { ttlMs?: number; cacheScope?: string };
    return { ttlMs, cacheScope };
  };
  return {
    tools: pick(await client.listToolsPage()),
    resources: pick(await client.listResourcesPage()),
    forecast: pick(await client.readResource({ uri: 'up+cache://forecast' })),
    inbox: pick(await client.readResource({ uri: 'up+cache://inbox' })),
  };
}

describe('caching hints through the gateway', () => {
  it('carries a 2026-07-28 upstream hints to 2026-07-28 callers, and none to 2025-11-25 ones', async () => {
    await using running = await startGateway({ up: upstream() });
    const modern = await running.connect({ cache: false });
    expect(await hints(modern)).toEqual({
      tools: { ttlMs: 60_000, cacheScope: 'public' },
      // The page holds the private inbox: the list is private, with the shortest ttl of its entries.
      resources: { ttlMs: 30_000, cacheScope: 'private' },
      forecast: { ttlMs: 30_000, cacheScope: 'public' },
      inbox: { ttlMs: 60_000, cacheScope: 'private' },
    });
    const legacy = await running.connect({ protocolVersion: '2025-11-25', cache: false });
    const none = { ttlMs: undefined, cacheScope: undefined };
    expect(await hints(legacy)).toEqual({ tools: none, resources: none, forecast: none, inbox: none });
  }, 60_000);

  it('makes an earlier-revision upstream results private and stale, and a filtered list private', async () => {
    await using old = await startGateway({ up: upstream({ protocolVersion: '2025-11-25' }) });
    const caller = await old.connect({ cache: false });
    const uncached = { ttlMs: 0, cacheScope: 'private' };
    expect(await hints(caller)).toEqual({
      tools: uncached,
      resources: uncached,
      forecast: uncached,
      inbox: uncached,
    });

    await using filtered = await startGateway(
      { up: upstream() },
      { policies: [{ principals: ['*'], tools: { allow: ['*'] } }] },
    );
    const seen = await hints(await filtered.connect({ cache: false }));
    // What one principal may see is never shared with another; reads keep the upstream's hints.
    expect(seen.tools).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
    expect(seen.forecast).toEqual({ ttlMs: 30_000, cacheScope: 'public' });
  }, 60_000);
});
