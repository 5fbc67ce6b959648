/** Handshake era (2024-11-05 .. 2025-11-25) over an in-memory pair; every server message is schema-checked. */
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { mcpHooks } from '../../src/mcp/hooks.js';
import { McpServer } from '../../src/server/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { delay } from '../../src/util/abort.js';
import { type LegacyClient, legacyClient, waitFor } from './support.js';

const clients: LegacyClient[] = [];
afterEach(async () => {
  const done = clients.splice(0);
  await Promise.all(done.map((client) => client.close()));
  expect(done.flatMap((client) => client.schemaErrors).join('\n')).toBe('');
});

async function connect(
  server: McpServer,
  options: Parameters<typeof legacyClient>[1] = {},
): Promise<LegacyClient> {
  const client = await legacyClient(server, options);
  clients.push(client);
  return client;
}

function makeServer(): McpServer {
  const server = new McpServer({
    name: 'legacy-server',
    version: '2.0.0',
    title: 'Legacy',
    icons: [{ src: 'https://x/i.png' }],
  });
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'echoes',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    },
    ({ text }: { text: string }) => ({ content: [{ type: 'text', text }], structuredContent: { text } }),
  );
  server.registerTool('sounds', {}, () => ({
    content: [
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a' },
    ],
  }));
  server.registerResource('doc', 'file:///doc.txt', { title: 'Doc' }, (uri) => ({
    contents: [{ uri, text: 'doc' }],
  }));
  return server;
}

describe('initialize', () => {
  it('negotiates the requested revision, or the newest handshake one for an unknown request', async () => {
    const server = makeServer();
    const modern = await connect(server, { revision: '2025-06-18' });
    expect(modern.initializeResult).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'legacy-server', version: '2.0.0', title: 'Legacy' },
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true },
        logging: {},
        completions: {},
      },
    });
    expect(modern.initializeResult).not.toHaveProperty('resultType');
    expect((modern.initializeResult.serverInfo as Record<string, unknown>).icons).toBeUndefined();
    const unknown = await connect(server, { revision: '1999-01-01' });
    expect(unknown.revision).toBe('2025-11-25');
    expect((unknown.initializeResult.serverInfo as Record<string, unknown>).icons).toEqual([
      { src: 'https://x/i.png' },
    ]);
  });

  it('refuses session requests before initialize but answers ping', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const session = await makeServer().connect(serverSide);
    const connection = new Connection(clientSide, { hooks: mcpHooks });
    await connection.start();
    try {
      await expect(connection.request('tools/list')).rejects.toMatchObject({ code: -32600 });
      await expect(connection.request('ping')).resolves.toEqual({});
    } finally {
      await connection.close();
      await session.close();
    }
  });

  it('shapes lists and results for 2024-11-05: no title, annotations, outputSchema, structuredContent or audio', async () => {
    const client = await connect(makeServer(), { revision: '2024-11-05' });
    const { tools } = (await client.connection.request('tools/list')) as {
      tools: Array<Record<string, unknown>>;
    };
    expect(tools[0]).toEqual({
      name: 'echo',
      description: 'echoes',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    const echoed = await client.connection.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(echoed).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const sounds = await client.connection.request('tools/call', { name: 'sounds', arguments: {} });
    expect((sounds.content as Array<{ type: string }>).map((block) => block.type)).toEqual(['text', 'text']);
    const listed = await client.connection.request('resources/list');
    expect(listed).toEqual({ resources: [{ uri: 'file:///doc.txt', name: 'doc' }] });
  });

  it('keeps newer fields for 2025-11-25 and reports an unknown resource with -32002', async () => {
    const client = await connect(makeServer());
    const { tools } = (await client.connection.request('tools/list')) as {
      tools: Array<Record<string, unknown>>;
    };
    expect(tools[0]).toMatchObject({ title: 'Echo', annotations: { readOnlyHint: true }, outputSchema: {} });
    await expect(client.connection.request('resources/read', { uri: 'file:///none' })).rejects.toMatchObject({
      code: -32002,
      data: { uri: 'file:///none' },
    });
  });
});

describe('session utilities', () => {
  it('filters logs by logging/setLevel and sends everything before it', async () => {
    const server = makeServer();
    server.registerTool('chatty', {}, async (_args, context) => {
      await context.log('debug', 'fine detail');
      await context.log('warning', 'careful');
      return { content: [] };
    });
    const client = await connect(server);
    await client.connection.request('tools/call', { name: 'chatty', arguments: {} });
    await waitFor(() => client.notifications.length === 2);
    expect(await client.connection.request('logging/setLevel', { level: 'warning' })).toEqual({});
    await client.connection.request('tools/call', { name: 'chatty', arguments: {} });
    await waitFor(() => client.notifications.length === 3);
    expect(client.notifications.map((n) => n.params?.data)).toEqual(['fine detail', 'careful', 'careful']);
    await expect(client.connection.request('logging/setLevel', { level: 'loud' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('delivers resources/updated to subscribers only until they unsubscribe', async () => {
    const server = makeServer();
    const client = await connect(server);
    expect(await client.connection.request('resources/subscribe', { uri: 'file:///doc.txt' })).toEqual({});
    server.notifyResourceUpdated('file:///doc.txt');
    server.notifyResourceUpdated('file:///other.txt');
    await waitFor(() => client.notifications.length === 1);
    expect(client.notifications[0]).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'file:///doc.txt' },
    });
    await client.connection.request('resources/unsubscribe', { uri: 'file:///doc.txt' });
    server.notifyResourceUpdated('file:///doc.txt');
    await delay(20);
    expect(client.notifications).toHaveLength(1);
  });

  it('sends list_changed when primitives are added, updated, disabled or removed', async () => {
    const server = makeServer();
    const client = await connect(server);
    const handle = server.registerTool('later', { description: 'v1' }, () => ({ content: [] }));
    await waitFor(() => client.notifications.length === 1);
    handle.update({ description: 'v2' });
    await waitFor(() => client.notifications.length === 2);
    const { tools } = (await client.connection.request('tools/list')) as {
      tools: Array<Record<string, unknown>>;
    };
    expect(tools.find((tool) => tool.name === 'later')?.description).toBe('v2');
    handle.disable();
    await waitFor(() => client.notifications.length === 3);
    await expect(
      client.connection.request('tools/call', { name: 'later', arguments: {} }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    handle.enable();
    handle.remove();
    server.registerPrompt('p', {}, () => ({ messages: [] }));
    await waitFor(() => client.notifications.length === 5);
    expect(client.notifications.map((n) => n.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
  });

  it('reports progress to the requester', async () => {
    const server = makeServer();
    server.registerTool('steps', {}, async (_args, context) => {
      for (let i = 1; i <= 3; i++) await context.progress(i, 3, `step ${i}`);
      return { content: [] };
    });
    const client = await connect(server, { revision: '2024-11-05' });
    const seen: Array<Record<string, unknown>> = [];
    await client.connection.request(
      'tools/call',
      { name: 'steps', arguments: {} },
      { onprogress: (p) => seen.push(p) },
    );
    // 2024-11-05 progress notifications have no message field.
    expect(seen.map(({ progressToken: _token, ...rest }) => rest)).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it('aborts the handler when the client cancels, and sends no response', async () => {
    const server = makeServer();
    let aborted = false;
    server.registerTool('slow', {}, async (_args, context) => {
      context.signal.addEventListener('abort', () => {
        aborted = true;
      });
      await delay(10_000, context.signal);
      return { content: [] };
    });
    const client = await connect(server);
    const controller = new AbortController();
    const call = client.connection.request(
      'tools/call',
      { name: 'slow', arguments: {} },
      { signal: controller.signal },
    );
    await delay(20);
    controller.abort('user pressed stop');
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await waitFor(() => aborted);
  });
});

describe('server-initiated input on a session', () => {
  function inputServer(): McpServer {
    const server = makeServer();
    server.registerTool('survey', {}, async (_args, context) => {
      const name = await context.elicit({
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      const reply = await context.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      });
      const { roots } = await context.listRoots();
      return {
        content: [
          { type: 'text', text: `${String(name.content?.name)} / ${reply.model} / ${roots.length} roots` },
        ],
      };
    });
    return server;
  }

  it('asks the client with elicitation/create, sampling/createMessage and roots/list', async () => {
    const asked: string[] = [];
    const client = await connect(inputServer(), {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      handlers: {
        'elicitation/create': (params) => {
          asked.push(String(params?.message));
          return { action: 'accept', content: { name: 'Ada' } };
        },
        'sampling/createMessage': () => {
          asked.push('sampling');
          return { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'model-x' };
        },
        'roots/list': () => {
          asked.push('roots');
          return { roots: [{ uri: 'file:///w' }] };
        },
      },
    });
    const result = await client.connection.request('tools/call', { name: 'survey', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Ada / model-x / 1 roots' }] });
    expect(asked).toEqual(['Name?', 'sampling', 'roots']);
  });

  it('reports a missing client capability as a tool error without asking', async () => {
    let asked = false;
    const client = await connect(inputServer(), {
      capabilities: {},
      handlers: {
        'elicitation/create': () => {
          asked = true;
          return { action: 'decline' };
        },
      },
    });
    const result = await client.connection.request('tools/call', { name: 'survey', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/does not support elicitation\/create/);
    expect(asked).toBe(false);
  });

  it("passes a protocol error from the client's answer through as a protocol error", async () => {
    const client = await connect(inputServer(), {
      capabilities: { elicitation: {} },
      handlers: {
        'elicitation/create': () => {
          throw new RpcError(-32603, 'no UI available');
        },
      },
    });
    await expect(
      client.connection.request('tools/call', { name: 'survey', arguments: {} }),
    ).rejects.toMatchObject({
      code: -32603,
      message: 'no UI available',
    });
  });

  it("refuses an answer without its request's result shape: a tool error, not data for the handler", async () => {
    const client = await connect(inputServer(), {
      capabilities: { elicitation: {} },
      handlers: { 'elicitation/create': () => ({ action: 'maybe', content: 'Ada' }) },
    });
    const result = await client.connection.request('tools/call', { name: 'survey', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/answered elicitation\/create with a malformed result/);
  });
});
