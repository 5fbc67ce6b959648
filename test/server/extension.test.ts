/**
 * McpServer.use(extension): an extension's methods join the one route table both eras dispatch from, and its
 * capability is advertised (2026-07-28 basic/extensions). The extension here is a tiny in-test one, shaped like
 * the tasks and skills extensions: a list, a get with validated params, and a method of one era only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import { mcpHooks } from '../../src/mcp/hooks.js';
import { invalidParams } from '../../src/mcp/errors.js';
import { MetaKey } from '../../src/mcp/meta.js';
import { McpServer, type ServerExtension } from '../../src/server/index.js';
import { type Listening, listen } from '../../src/server/http.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { modern, post } from './http/helpers.js';
import { MODERN, legacyClient, modernMeta, validateEmitted } from './support.js';

const NOTES_ID = 'com.example/notes';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

function notesExtension(calls: string[] = []): ServerExtension {
  const notes: Record<string, string> = { a: 'first note', b: 'second note' };
  return {
    id: NOTES_ID,
    settings: { maxNotes: 2 },
    methods: {
      'notes/list': {
        handler: (_params, ctx) => {
          calls.push(`list:${ctx.era}`);
          return { notes: Object.keys(notes), era: ctx.era, client: ctx.clientInfo?.name ?? null };
        },
      },
      'notes/get': {
        handler: async (params) => {
          const id = params?.id;
          if (typeof id !== 'string' || !Object.hasOwn(notes, id))
            throw invalidParams(`no note ${String(id)}`);
          return { text: notes[id] as string };
        },
      },
      'notes/pin': { era: 'stateless', handler: () => ({ pinned: true }) },
    },
  };
}

/** Both eras on one in-memory channel, as stdio serves them. */
async function dualChannel(server: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await server.serve(serverSide);
  const connection = new Connection(clientSide, { hooks: mcpHooks });
  await connection.start();
  return { connection, close: () => session.close() };
}

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

describe('McpServer.use(extension)', () => {
  it('advertises the extension and serves its methods in both eras on one channel', async () => {
    const calls: string[] = [];
    const server = new McpServer({ name: 'ext', version: '1' }).use(notesExtension(calls));
    const { connection, close } = await dualChannel(server);
    cleanup.push(close);

    const discover = await connection.request('server/discover', { _meta: modernMeta() });
    expect(discover.capabilities).toMatchObject({ extensions: { [NOTES_ID]: { maxNotes: 2 } } });
    // 2026-07-28: an extension's result is finished like any other one.
    const modernList = await connection.request('notes/list', { _meta: modernMeta() });
    expect(modernList).toEqual({
      notes: ['a', 'b'],
      era: 'stateless',
      client: 'test-client',
      resultType: 'complete',
      _meta: { [SERVER_INFO]: { name: 'ext', version: '1' } },
    });

    const initialize = await connection.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'session-client', version: '1' },
    });
    expect(initialize.capabilities).toMatchObject({ extensions: { [NOTES_ID]: { maxNotes: 2 } } });
    await connection.notify('notifications/initialized');
    const sessionList = await connection.request('notes/list');
    expect(sessionList).toEqual({ notes: ['a', 'b'], era: 'handshake', client: 'session-client' });
    expect(await connection.request('notes/get', { id: 'b' })).toEqual({ text: 'second note' });
    expect(calls).toEqual(['list:stateless', 'list:handshake']);
  });

  it('answers a method of the other era -32601 and a malformed request with the handler error', async () => {
    const server = new McpServer({ name: 'ext', version: '1' }).use(notesExtension());
    const client = await legacyClient(server);
    cleanup.push(() => client.close());
    await expect(client.connection.request('notes/pin')).rejects.toMatchObject({ code: -32601 });
    await expect(client.connection.request('notes/get', { id: 'zzz' })).rejects.toMatchObject({
      code: -32602,
      message: 'no note zzz',
    });
    // Before initialize, an extension method is refused like every non-lifecycle method.
    const { connection, close } = await dualChannel(server);
    cleanup.push(close);
    await expect(connection.request('notes/list')).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/not initialized/),
    });
    expect(client.schemaErrors).toEqual([]);
  });

  it('answers a handler result that is not an object with an internal error, and keeps serving', async () => {
    const broken: ServerExtension = {
      id: 'com.example/broken',
      methods: {
        'broken/array': { handler: () => [1, 2] as unknown as Record<string, never> },
        'broken/nothing': { handler: async () => undefined as unknown as Record<string, never> },
      },
    };
    const server = new McpServer({ name: 'ext', version: '1' }).use(broken).use(notesExtension());
    const { connection, close } = await dualChannel(server);
    cleanup.push(close);
    for (const method of ['broken/array', 'broken/nothing']) {
      await expect(connection.request(method, { _meta: modernMeta() })).rejects.toMatchObject({
        code: -32603,
      });
    }
    expect(await connection.request('notes/get', { id: 'a', _meta: modernMeta() })).toMatchObject({
      text: 'first note',
    });
    const client = await legacyClient(server);
    cleanup.push(() => client.close());
    await expect(client.connection.request('broken/nothing')).rejects.toMatchObject({ code: -32603 });
    expect(await client.connection.request('notes/get', { id: 'a' })).toEqual({ text: 'first note' });
  });

  it('finishes a method with its cache hints on 2026-07-28 only, and refuses a gated one to a non-declaring client', async () => {
    const server = new McpServer({ name: 'ext', version: '1' }).use({
      id: 'com.example/cached',
      gated: true,
      methods: {
        'cached/get': { cache: { ttlMs: 5000.7, cacheScope: 'public' }, handler: () => ({ v: 1 }) },
      },
    });
    const { connection, close } = await dualChannel(server);
    cleanup.push(close);
    const declared = { extensions: { 'com.example/cached': {} } };
    const meta = modernMeta();
    const declaring = modernMeta({ [MetaKey.ClientCapabilities]: declared });
    expect(await connection.request('cached/get', { _meta: declaring })).toEqual({
      v: 1,
      ttlMs: 5000,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: { [SERVER_INFO]: { name: 'ext', version: '1' } },
    });
    await expect(connection.request('cached/get', { _meta: meta })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'com.example/cached': {} } } },
    });
    await connection.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: declared,
      clientInfo: { name: 'session-client', version: '1' },
    });
    await connection.notify('notifications/initialized');
    expect(await connection.request('cached/get')).toEqual({ v: 1 });
  });

  it('serves its methods over 2026-07-28 Streamable HTTP', async () => {
    const server = new McpServer({ name: 'ext', version: '1' }).use(notesExtension());
    const http: Listening = await listen(server, { keepAliveMs: 0 });
    cleanup.push(
      () => server.close(),
      () => http.close(),
    );
    for (const [method, params, expected] of [
      ['notes/get', { id: 'a' }, { text: 'first note', resultType: 'complete' }],
      ['notes/pin', {}, { pinned: true, resultType: 'complete' }],
    ] as const) {
      const { body, headers } = modern(method, params);
      const response = await post(http.url, body, headers);
      expect(response.status).toBe(200);
      const message = await response.json();
      validateEmitted(MODERN, message);
      expect(message).toMatchObject({ id: 1, result: expected });
    }
    const missing = modern('notes/get', {});
    const refused = await (await post(http.url, missing.body, missing.headers)).json();
    expect(refused).toMatchObject({ id: 1, error: { code: -32602, message: 'no note undefined' } });
  });

  it('adds its methods to sessions that were open before it was installed', async () => {
    const server = new McpServer({ name: 'ext', version: '1' });
    const client = await legacyClient(server);
    cleanup.push(() => client.close());
    await expect(client.connection.request('notes/get', { id: 'a' })).rejects.toMatchObject({ code: -32601 });
    server.use(notesExtension());
    expect(await client.connection.request('notes/get', { id: 'a' })).toEqual({ text: 'first note' });
  });

  it('refuses a taken id, a method already served and a malformed id, and leaves the server as it was', async () => {
    const server = new McpServer({ name: 'ext', version: '1' }).use(notesExtension());
    expect(() => server.use(notesExtension())).toThrow(/already in use/);
    const hijack: ServerExtension = {
      id: 'com.example/hijack',
      methods: {
        'hijack/own': { handler: () => ({}) },
        'tools/call': { handler: () => ({ content: [] }) },
      },
    };
    expect(() => server.use(hijack)).toThrow(/tools\/call is already served/);
    expect(() => server.use({ id: 'no-prefix', methods: {} })).toThrow(TypeError);
    const { connection, close } = await dualChannel(server);
    cleanup.push(close);
    const discover = await connection.request('server/discover', { _meta: modernMeta() });
    const { extensions } = discover.capabilities as { extensions: Record<string, unknown> };
    expect(Object.keys(extensions)).toEqual([NOTES_ID]);
    await expect(connection.request('hijack/own', { _meta: modernMeta() })).rejects.toMatchObject({
      code: -32601,
    });
    // tools/call is still MCP's own: an unknown tool, not the hijacker's empty result.
    await expect(
      connection.request('tools/call', { name: 'x', arguments: {}, _meta: modernMeta() }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
