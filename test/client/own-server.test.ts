/**
 * agentforge's client against agentforge's server (src/server): in memory through the dual-era channel, and over
 * real HTTP in both eras and on the 2024-11-05 HTTP+SSE transport. The same behaviour suite runs on each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/types.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { acceptingHandlers, waitFor } from './helpers.js';

function buildServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'own-server', version: '0.1.0', instructions: 'ours' }, options);
  server.registerTool(
    'greet',
    {
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, tenant: { type: 'string', 'x-mcp-header': 'Tenant' } },
        required: ['name'],
      },
    },
    async (args: { name: string; tenant?: string }) => ({
      content: [{ type: 'text', text: `Hello, ${args.name}${args.tenant ? ` of ${args.tenant}` : ''}` }],
    }),
  );
  server.registerTool('confirm', { inputSchema: { type: 'object' } }, async (_args, context) => {
    const answer = await context.elicit({
      message: 'Proceed?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    const sampled = await context.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }],
      maxTokens: 5,
    });
    const roots = await context.listRoots();
    const text = (sampled.content as { text?: string }).text;
    return { content: [{ type: 'text', text: `${answer.action} ${text} ${roots.roots.length}` }] };
  });
  server.registerTool('count', { inputSchema: { type: 'object' } }, async (_args, context) => {
    for (let i = 1; i <= 3; i++) await context.progress(i, 3);
    return { content: [{ type: 'text', text: 'counted' }] };
  });
  server.registerResource('note', 'test://note', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: 'a note' }],
  }));
  server.registerPrompt('hello', { arguments: [{ name: 'who', required: true }] }, async (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `hello ${args.who}` } }],
  }));
  return server;
}

interface Setup {
  name: string;
  era: 'stateless' | 'handshake';
  kind: string;
  connect(server: McpServer, options: ClientOptions): Promise<{ client: McpClient; stop(): Promise<void> }>;
}

async function overHttp(server: McpServer, options: ClientOptions, path = '/mcp') {
  const listening = await server.listen();
  const client = await McpClient.connect(listening.url.replace(/\/mcp$/, path), options);
  return { client, stop: () => listening.close() };
}

const setups: Setup[] = [
  {
    name: 'in memory, detected',
    era: 'stateless',
    kind: 'custom',
    connect: async (server, options) => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const session = await server.serve(serverSide);
      const client = await McpClient.connect(clientSide, options);
      return { client, stop: () => session.close() };
    },
  },
  {
    name: 'HTTP, detected',
    era: 'stateless',
    kind: 'streamable-http',
    connect: (server, options) => overHttp(server, options),
  },
  {
    name: 'HTTP, pinned 2025-11-25',
    era: 'handshake',
    kind: 'streamable-http',
    connect: (server, options) => overHttp(server, { ...options, protocolVersion: '2025-11-25' }),
  },
  {
    name: 'HTTP+SSE',
    era: 'handshake',
    kind: 'sse',
    connect: (server, options) => overHttp(server, { ...options, transport: 'sse' }, '/sse'),
  },
  {
    // The /sse URL answers a POST with 405: 'auto' must fall back to HTTP+SSE, as mcp.json hosts rely on.
    name: 'HTTP+SSE, detected from a URL without a type',
    era: 'handshake',
    kind: 'sse',
    connect: (server, options) => overHttp(server, { ...options, transport: 'auto' }, '/sse'),
  },
];

describe.each(setups)('own server: $name', (setup) => {
  let client: McpClient;
  let stop: () => Promise<void>;
  const seen: string[] = [];
  beforeAll(async () => {
    ({ client, stop } = await setup.connect(buildServer(), { handlers: acceptingHandlers(seen) }));
  });
  afterAll(async () => {
    await client?.close();
    await stop?.();
  });

  it('speaks the expected era on the expected transport', () => {
    expect(client.era).toBe(setup.era);
    expect(client.transportKind).toBe(setup.kind);
    expect(client.serverInfo?.name).toBe('own-server');
    expect(client.instructions).toBe('ours');
  });

  it('lists and calls tools, mirroring x-mcp-header parameters', async () => {
    const tools = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['confirm', 'count', 'greet']);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada', tenant: 'Ünïon' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada of Ünïon' }]);
  });

  it('answers elicitation, sampling and roots through the same handlers in either era', async () => {
    seen.length = 0;
    const result = await client.callTool({ name: 'confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'accept hi 1' }]);
    expect(seen).toEqual(['elicitation:Proceed?', 'sampling', 'roots']);
  });

  it('reports progress, reads resources, gets prompts, and throws RpcError on unknown tools', async () => {
    const progress: number[] = [];
    await client.callTool({ name: 'count', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    const read = await client.readResource({ uri: 'test://note' });
    expect(read.contents[0]).toMatchObject({ text: 'a note' });
    const prompt = await client.getPrompt({ name: 'hello', arguments: { who: 'you' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'hello you' });
    await expect(client.callTool({ name: 'missing', arguments: {} })).rejects.toBeInstanceOf(RpcError);
  });
});

describe('own server: change notifications', () => {
  it.each([
    'detected',
    'pinned 2025-11-25',
  ])('subscribe delivers list changes over HTTP (%s)', async (mode) => {
    const server = buildServer();
    const listening = await server.listen();
    const client = await McpClient.connect(
      listening.url,
      mode === 'detected' ? {} : { protocolVersion: '2025-11-25' },
    );
    try {
      const received: string[] = [];
      expect((await client.listTools()).map((t) => t.name)).not.toContain('late');
      const subscription = await client.subscribe({ toolsListChanged: true }, (n) => received.push(n.method));
      expect(subscription.acknowledged.toolsListChanged).toBe(true);
      server.registerTool('late', { inputSchema: { type: 'object' } }, async () => ({ content: [] }));
      await waitFor(() => received.length > 0);
      expect(received[0]).toBe('notifications/tools/list_changed');
      expect((await client.listTools()).map((t) => t.name)).toContain('late');
      await subscription.close();
    } finally {
      await client.close();
      await listening.close();
    }
  });
});
