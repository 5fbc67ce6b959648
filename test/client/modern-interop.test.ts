/**
 * Against the official @modelcontextprotocol/server 2.4 (2026-07-28), over stdio (serveStdio) and Streamable
 * HTTP: the same suite on both transports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { type HttpFixture, MODERN_SERVER, acceptingHandlers, startHttpFixture, waitFor } from './helpers.js';

interface Peer {
  client: McpClient;
  seen: string[];
  fixture?: HttpFixture;
}

const transports = [
  {
    name: 'stdio',
    start: async (): Promise<Peer> => {
      const seen: string[] = [];
      const client = await McpClient.connect(
        { command: process.execPath, args: [MODERN_SERVER, 'stdio'] },
        { handlers: acceptingHandlers(seen) },
      );
      return { client, seen };
    },
  },
  {
    name: 'streamable-http',
    start: async (): Promise<Peer> => {
      const fixture = await startHttpFixture(MODERN_SERVER, 'http');
      const seen: string[] = [];
      const client = await McpClient.connect(fixture.url, { handlers: acceptingHandlers(seen) });
      return { client, seen, fixture };
    },
  },
];

describe.each(transports)('official 2026-07-28 server over $name', ({ name, start }) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await start();
  });
  afterAll(async () => {
    await peer?.client.close();
    await peer?.fixture?.close();
  });

  it('detects the stateless era and reads discover', () => {
    expect(peer.client.era).toBe('stateless');
    expect(peer.client.protocolVersion).toBe('2026-07-28');
    expect(peer.client.serverInfo?.name).toBe('modern-fixture');
    expect(peer.client.instructions).toBe('A modern test server.');
    expect(peer.client.serverCapabilities.tools).toBeDefined();
  });

  it('lists and calls tools; isError results are returned, not thrown', async () => {
    const tools = await peer.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'fail', 'confirm']));
    const echoed = await peer.client.callTool({ name: 'echo', arguments: { text: 'hi', region: 'eu-west' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'hi@eu-west' }]);
    const sum = await peer.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    const failed = await peer.client.callTool({ name: 'fail', arguments: {} });
    expect(failed.isError).toBe(true);
  });

  it('throws RpcError for protocol errors', async () => {
    const error = await peer.client
      .callTool({ name: 'no-such-tool', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
  });

  it('answers input_required with the elicitation handler and echoes requestState', async () => {
    const result = await peer.client.callTool({ name: 'confirm', arguments: { action: 'deploy' } });
    expect(result.content).toEqual([{ type: 'text', text: 'deploy: confirmed (state-for-deploy)' }]);
    expect(peer.seen).toContain('elicitation:Really deploy?');
  });

  it('answers sampling and roots input requests in one round', async () => {
    const result = await peer.client.callTool({ name: 'ask-model', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hi / file:///workspace' }]);
  });

  it('keeps parallel MRTR calls apart', async () => {
    const results = await Promise.all(
      ['a', 'b', 'c'].map((action) => peer.client.callTool({ name: 'confirm', arguments: { action } })),
    );
    expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual([
      'a: confirmed (state-for-a)',
      'b: confirmed (state-for-b)',
      'c: confirmed (state-for-c)',
    ]);
  });

  it('delivers progress to the caller', async () => {
    const progress: number[] = [];
    const result = await peer.client.callTool(
      { name: 'slow', arguments: { ms: 100 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'slept 100' }]);
    expect(progress).toEqual([1, 2, 3, 4, 5]);
  });

  it('reads resources and gets prompts', async () => {
    const resources = await peer.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('test://readme');
    const read = await peer.client.readResource({ uri: 'test://readme' });
    expect(read.contents).toEqual([{ uri: 'test://readme', mimeType: 'text/plain', text: 'read me' }]);
    const prompt = await peer.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello, Ada' });
  });

  if (name === 'streamable-http') {
    it('subscribes with subscriptions/listen and receives list changes', async () => {
      const received: string[] = [];
      const subscription = await peer.client.subscribe({ toolsListChanged: true }, (n) =>
        received.push(n.method),
      );
      expect(subscription.acknowledged.toolsListChanged).toBe(true);
      let events = 0;
      peer.client.on('toolsListChanged', () => events++);
      peer.fixture?.command('tools-changed');
      await waitFor(() => received.length > 0);
      expect(received).toEqual(['notifications/tools/list_changed']);
      expect(events).toBe(1);
      await subscription.close();
      await subscription.closed;
    });
  }
});

describe('era detection on stdio', () => {
  it('falls back to initialize on the same process when discover is not understood', async () => {
    const stderr: string[] = [];
    const client = await McpClient.connect(
      { command: process.execPath, args: [MODERN_SERVER, 'stdio-legacy'] },
      { handlers: acceptingHandlers(), onstderr: (line) => stderr.push(line) },
    );
    try {
      expect(client.era).toBe('handshake');
      expect(client.protocolVersion).toBe('2025-11-25');
      // The probe and the initialize went to one process: no second server was spawned.
      await waitFor(() => stderr.length > 0);
      expect(stderr.filter((line) => line.startsWith('started'))).toHaveLength(1);
      const echoed = await client.callTool({ name: 'echo', arguments: { text: 'legacy' } });
      expect(echoed.content).toEqual([{ type: 'text', text: 'legacy' }]);
    } finally {
      await client.close();
    }
  });

  it('a pinned handshake version skips the probe', async () => {
    const client = await McpClient.connect(
      { command: process.execPath, args: [MODERN_SERVER, 'stdio'] },
      { protocolVersion: '2025-06-18' },
    );
    try {
      expect(client.era).toBe('handshake');
      expect(client.protocolVersion).toBe('2025-06-18');
    } finally {
      await client.close();
    }
  });
});
