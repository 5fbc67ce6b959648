/**
 * Against the official @modelcontextprotocol/sdk 1.x (handshake era): stdio, stateful Streamable HTTP
 * (sessions, GET stream) and the 2024-11-05 HTTP+SSE transport reached through `transport: 'auto'`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { type HttpFixture, LEGACY_SERVER, acceptingHandlers, startHttpFixture, waitFor } from './helpers.js';

interface Peer {
  client: McpClient;
  seen: string[];
  fixture?: HttpFixture;
}

const transports = [
  {
    name: 'stdio',
    kind: 'stdio',
    start: async (): Promise<Peer> => {
      const seen: string[] = [];
      const client = await McpClient.connect(
        { command: process.execPath, args: [LEGACY_SERVER, 'stdio'] },
        { handlers: acceptingHandlers(seen), logLevel: 'debug' },
      );
      return { client, seen };
    },
  },
  {
    name: 'streamable-http',
    kind: 'streamable-http',
    start: async (): Promise<Peer> => {
      const fixture = await startHttpFixture(LEGACY_SERVER, 'http');
      const seen: string[] = [];
      const client = await McpClient.connect(fixture.url, {
        handlers: acceptingHandlers(seen),
        logLevel: 'debug',
      });
      return { client, seen, fixture };
    },
  },
  {
    name: 'HTTP+SSE via auto',
    kind: 'sse',
    start: async (): Promise<Peer> => {
      const fixture = await startHttpFixture(LEGACY_SERVER, 'sse');
      const seen: string[] = [];
      const client = await McpClient.connect(fixture.url, { handlers: acceptingHandlers(seen) });
      return { client, seen, fixture };
    },
  },
];

describe.each(transports)('official sdk 1.x server over $name', ({ kind, start }) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await start();
  });
  afterAll(async () => {
    await peer?.client.close();
    await peer?.fixture?.close();
  });

  it('negotiates the handshake era on the expected transport', () => {
    expect(peer.client.era).toBe('handshake');
    expect(peer.client.protocolVersion).toBe('2025-11-25');
    expect(peer.client.serverInfo?.name).toBe('legacy-fixture');
    expect(peer.client.transportKind).toBe(kind);
  });

  it('calls tools and answers server-initiated elicitation, sampling and roots', async () => {
    const echoed = await peer.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'hello' }]);
    const confirmed = await peer.client.callTool({ name: 'confirm', arguments: { action: 'ship' } });
    expect(confirmed.content).toEqual([{ type: 'text', text: 'ship: accept {"ok":true}' }]);
    const asked = await peer.client.callTool({ name: 'ask-model', arguments: {} });
    expect(asked.content).toEqual([{ type: 'text', text: 'hi / file:///workspace' }]);
    expect(peer.seen).toEqual(['elicitation:Really ship?', 'sampling', 'roots']);
  });

  it('delivers progress, reads resources, gets prompts, pings', async () => {
    const progress: number[] = [];
    await peer.client.callTool(
      { name: 'slow', arguments: { ms: 50 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([1, 2, 3, 4, 5]);
    const read = await peer.client.readResource({ uri: 'test://readme' });
    expect(read.contents[0]).toMatchObject({ text: 'read me' });
    const prompt = await peer.client.getPrompt({ name: 'greet', arguments: { name: 'Lin' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello, Lin' });
    await expect(peer.client.ping()).resolves.toBeUndefined();
  });

  if (kind !== 'stdio') {
    it('receives list changes and resource updates pushed by the server', async () => {
      const received: string[] = [];
      const subscription = await peer.client.subscribe(
        { toolsListChanged: true, resourceSubscriptions: ['test://readme'] },
        (n) => received.push(n.method),
      );
      expect(subscription.acknowledged).toEqual({
        toolsListChanged: true,
        resourceSubscriptions: ['test://readme'],
      });
      peer.fixture?.command('tools-changed');
      peer.fixture?.command('update');
      await waitFor(() => received.length >= 2);
      expect(received.sort()).toEqual([
        'notifications/resources/updated',
        'notifications/tools/list_changed',
      ]);
      await subscription.close();
    });
  }
});

describe('Streamable HTTP session expiry', () => {
  it('re-initializes after a 404 on its session and tells the caller', async () => {
    const fixture = await startHttpFixture(LEGACY_SERVER, 'http');
    const client = await McpClient.connect(fixture.url);
    try {
      const expired: unknown[] = [];
      client.on('sessionExpired', (event) => expired.push(event));
      await client.listTools();
      fixture.command('expire');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Idempotent reads are retried on the new session; the caller is told through the event.
      const tools = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(expired).toHaveLength(1);
      fixture.command('expire');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // tools/call is not retried: the caller sees the failure and may call again on the new session.
      await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(/session/);
      expect(expired).toHaveLength(2);
      await expect(client.callTool({ name: 'echo', arguments: { text: 'again' } })).resolves.toMatchObject({
        content: [{ type: 'text', text: 'again' }],
      });
    } finally {
      await client.close();
      await fixture.close();
    }
  });
});
