/**
 * The gateway over real upstream processes (the lab server, spawned on stdio), reached by agentforge's client
 * over real HTTP in both eras: namespacing, groups, forwarding of every primitive, list changes, and input
 * requests crossing between eras in both directions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpClient } from '../../src/client/client.js';
import { type Running, eventually, lab, startGateway, textOf } from './support.js';

const ERAS = [
  ['2025-11-25 (handshake)', '2025-11-25'],
  ['2026-07-28 (stateless)', '2026-07-28'],
] as const;

let running: Running;

beforeAll(async () => {
  running = await startGateway({
    alpha: lab('alpha'),
    // Pinned: the gateway speaks the handshake era to this upstream, whatever its callers speak.
    beta: lab('beta', { protocolVersion: '2025-11-25', group: 'research' }),
  });
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
});

const answers = {
  elicitation: async () => ({ action: 'accept' as const, content: { city: 'Paris' } }),
  sampling: async () => ({
    role: 'assistant' as const,
    model: 'fake',
    content: { type: 'text' as const, text: 'forty-two' },
  }),
};

describe.each(ERAS)('a %s client through the gateway', (_label, protocolVersion) => {
  let client: McpClient;
  beforeAll(async () => {
    client = await running.connect({ protocolVersion, handlers: answers });
  });

  it('lists every upstream tool under its server prefix, clashing names kept apart', async () => {
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain('alpha__search');
    expect(names).toContain('beta__search');
    expect(names).not.toContain('search');
    const search = (await client.listTools()).find((tool) => tool.name === 'alpha__search')!;
    expect(search.inputSchema).toMatchObject({ required: ['query'], additionalProperties: false });
  });

  it('forwards tools/call to the right upstream', async () => {
    const alpha = await client.callTool({ name: 'alpha__search', arguments: { query: 'tea' } });
    const beta = await client.callTool({ name: 'beta__search', arguments: { query: 'tea', limit: 2 } });
    expect(textOf(alpha)).toBe('alpha found: tea');
    expect(textOf(beta)).toBe('beta found: tea (limit 2)');
  });

  it('checks arguments against the upstream schema before forwarding', async () => {
    const result = await client
      .callTool({ name: 'alpha__search', arguments: { query: 'tea', extra: 1 } })
      .catch((error: Error) => error);
    expect(String((result as Error).message ?? textOf(result as never))).toMatch(/Invalid|additional/i);
  });

  it('serves resources under server-prefixed URIs and reads them upstream', async () => {
    const uris = (await client.listResources()).map((resource) => resource.uri);
    expect(uris).toEqual(expect.arrayContaining(['alpha+lab://notes/today', 'beta+lab://notes/today']));
    const read = await client.readResource({ uri: 'beta+lab://notes/today' });
    expect(read.contents).toEqual([
      { uri: 'beta+lab://notes/today', mimeType: 'text/plain', text: 'beta notes' },
    ]);
  });

  it('serves prompts under server-prefixed names', async () => {
    const names = (await client.listPrompts()).map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(['alpha__summarise', 'beta__summarise']));
    const prompt = await client.getPrompt({ name: 'alpha__summarise', arguments: { topic: 'tides' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Summarise tides' });
  });

  it('relays an elicitation from a 2026-07-28 upstream (MRTR) and from a handshake upstream', async () => {
    for (const server of ['alpha', 'beta']) {
      const result = await client.callTool({ name: `${server}__ask_user`, arguments: {} });
      expect(textOf(result)).toBe('ship to Paris');
    }
    expect(running.gateway.openRequests).toBe(0);
  });

  it('relays sampling both ways too', async () => {
    for (const server of ['alpha', 'beta']) {
      const result = await client.callTool({ name: `${server}__ask_model`, arguments: { q: 'life?' } });
      expect(textOf(result)).toBe('model said: forty-two');
    }
  });

  it('relays cancellation upstream', async () => {
    const before = Number(textOf(await client.callTool({ name: 'alpha__cancellations', arguments: {} })));
    const controller = new AbortController();
    const call = client.callTool({ name: 'alpha__wait', arguments: {} }, { signal: controller.signal });
    await eventually(() => running.gateway.openRequests > 0 || undefined);
    controller.abort();
    await expect(call).rejects.toThrow();
    await eventually(async () => {
      const after = Number(textOf(await client.callTool({ name: 'alpha__cancellations', arguments: {} })));
      return after === before + 1 || undefined;
    });
  });

  it('keeps each call its own cancellation when calls follow one another (the gateway reuses settled ones)', async () => {
    const cancellations = async () =>
      Number(textOf(await client.callTool({ name: 'alpha__cancellations', arguments: {} })));
    const before = await cancellations();
    for (let round = 1; round <= 2; round++) {
      // Calls that settle, one asking for input among them: what the next call's cancellation may be built from.
      await client.callTool({ name: 'alpha__search', arguments: { query: 'tea' } });
      expect(textOf(await client.callTool({ name: 'alpha__ask_user', arguments: {} }))).toBe('ship to Paris');
      const controller = new AbortController();
      const call = client.callTool({ name: 'alpha__wait', arguments: {} }, { signal: controller.signal });
      await eventually(() => running.gateway.openRequests > 0 || undefined);
      controller.abort();
      await expect(call).rejects.toThrow();
      await eventually(async () => ((await cancellations()) === before + round ? true : undefined));
      // The cancelled call's signal is never handed to the next call, which is answered.
      const next = await client.callTool({ name: 'alpha__search', arguments: { query: 'tea' } });
      expect(textOf(next)).toBe('alpha found: tea');
    }
    expect(running.gateway.openRequests).toBe(0);
  });
});

describe('the gateway', () => {
  it('serves a group as its own endpoint', async () => {
    const client = await running.connect({}, running.listening.urlOf('research'));
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain('beta__search');
    expect(names.some((name) => name.startsWith('alpha__'))).toBe(false);
    const result = await client.callTool({ name: 'beta__search', arguments: { query: 'x' } });
    expect(textOf(result)).toBe('beta found: x');
  });

  it('answers /healthz and /readyz', async () => {
    const origin = new URL(running.url).origin;
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      servers: [
        { name: 'alpha', state: 'ready' },
        { name: 'beta', state: 'ready' },
      ],
    });
  });

  it.each(ERAS)('tells a %s client when an upstream tool list changes', async (_label, protocolVersion) => {
    const client = await running.connect({ protocolVersion });
    let changed = 0;
    client.on('toolsListChanged', () => changed++);
    await client.listChangesReady();
    const label = protocolVersion === '2025-11-25' ? 'beta' : 'alpha';
    await client.callTool({ name: `${label}__add_tool`, arguments: {} });
    await eventually(() => changed > 0 || undefined);
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain(`${label}__extra_tool`);
    expect(textOf(await client.callTool({ name: `${label}__extra_tool`, arguments: {} }))).toBe(
      `extra from ${label}`,
    );
  });
});

describe('search_tools on the gateway (toolSearch: true)', () => {
  it('finds the right upstream tool for a task, as the caller may see it', async () => {
    await using searching = await startGateway(
      { alpha: lab('alpha'), beta: lab('beta') },
      { toolSearch: true, policies: [{ principals: ['anonymous'], tools: { deny: ['beta__*'] } }] },
    );
    const client = await searching.connect();
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain('search_tools');
    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'ask the user for a shipping address', limit: 3 },
    });
    const tools = (found.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools[0]).toBe('alpha__ask_user');
    // Tools the caller may not use are never offered.
    expect(tools.some((name) => name.startsWith('beta__'))).toBe(false);
    expect(textOf(found)).toContain('alpha__ask_user');
  });
});
