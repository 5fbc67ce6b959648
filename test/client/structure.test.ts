/**
 * The client's structure as a user meets it: request middleware (connect-time requests included, a 401 retried),
 * results checked by shape against raw peers that send malformed ones, list changes from the client in both
 * eras, era and transport-kind caches that isolate clients, and the spawned server's pid.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { ClientMiddleware } from '../../src/client/contracts.js';
import { EraCache, TransportKindCache, defaultEraCache } from '../../src/client/server-caches.js';
import { targetKey } from '../../src/client/link.js';
import { HttpStatusError } from '../../src/transports/http/client/errors.js';
import {
  FIXTURES,
  LEGACY_SERVER,
  MODERN_SERVER,
  acceptingHandlers,
  complete,
  discoverResult,
  freshCaches,
  json,
  rawPeerScope,
  startHttpFixture,
  startRawServer,
  waitFor,
} from './helpers.js';

const { servers, serve, connect } = rawPeerScope();

function raw(handle: (message: Record<string, any>) => unknown) {
  return serve((message, res) => {
    if (message.id === undefined) return res.writeHead(202).end();
    json(res, 200, { jsonrpc: '2.0', id: message.id, result: handle(message) });
  });
}

describe('request middleware', () => {
  /** A modern server that refuses its first POST with 401, as a resource server does before a token. */
  async function refusesFirst() {
    let posts = 0;
    const server = await startRawServer((req, res, body) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const message = JSON.parse(body);
      if (posts++ === 0) return json(res, 401, { error: 'invalid_token' });
      if (message.method === 'server/discover')
        return json(res, 200, { jsonrpc: '2.0', id: message.id, result: discoverResult() });
      json(res, 200, complete(message.id, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
    });
    servers.push(server);
    return server;
  }

  it('sees the requests of connecting and can retry one refused with 401', async () => {
    const server = await refusesFirst();
    const seen: string[] = [];
    const retryOn401: ClientMiddleware = async (context, next) => {
      seen.push(`${context.method}${context.connecting ? ' (connecting)' : ''}`);
      try {
        return await next(context);
      } catch (error) {
        if (!(error instanceof HttpStatusError) || error.status !== 401) throw error;
        seen.push(`401 on ${context.method}`);
        return next(context);
      }
    };
    const client = await connect(server.url, { middleware: [retryOn401] });
    expect(client.era).toBe('stateless');
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect(seen).toEqual(['server/discover (connecting)', '401 on server/discover', 'tools/list']);
  });

  it('without it, the same 401 fails the connect', async () => {
    const server = await refusesFirst();
    await expect(connect(server.url)).rejects.toMatchObject({ status: 401 });
  });

  it('runs outermost first and may answer without the server', async () => {
    const server = await raw((message) => ({ resultType: 'complete', tools: [], method: message.method }));
    const order: string[] = [];
    const tag =
      (name: string): ClientMiddleware =>
      async (context, next) => {
        order.push(name);
        return next(context);
      };
    const cached: ClientMiddleware = async (context, next) =>
      context.method === 'tools/list' ? { tools: [{ name: 'local', inputSchema: {} }] } : next(context);
    const client = await connect(server.url, { middleware: [tag('a'), tag('b'), cached] });
    order.length = 0;
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['local']);
    expect(order).toEqual(['a', 'b']);
    expect(server.seen.some((request) => request.message.method === 'tools/list')).toBe(false);
  });
  it('sees every round of an input_required exchange, each with its inputResponses', async () => {
    const server = await serve((message, res) => {
      if (message.method !== 'tools/call')
        return json(res, 200, complete(message.id, { tools: [{ name: 'ask', inputSchema: {} }] }));
      if (message.params.inputResponses === undefined) {
        const inputRequests = {
          confirm: {
            method: 'elicitation/create',
            params: { message: 'Sure?', requestedSchema: { type: 'object' } },
          },
        };
        const result = { resultType: 'input_required', requestState: 'r1', inputRequests };
        return json(res, 200, { jsonrpc: '2.0', id: message.id, result });
      }
      json(res, 200, complete(message.id, { content: [{ type: 'text', text: 'confirmed' }] }));
    });
    const rounds: string[] = [];
    const record: ClientMiddleware = async (context, next) => {
      if (!context.connecting)
        rounds.push(Object.keys(context.params?.inputResponses ?? {}).join(',') || 'first');
      return next(context);
    };
    const client = await connect(server.url, {
      middleware: [record],
      handlers: { elicitation: () => ({ action: 'accept', content: {} }) },
    });
    const result = await client.callTool({ name: 'ask' });
    expect(result.content).toEqual([{ type: 'text', text: 'confirmed' }]);
    expect(rounds).toEqual(['first', 'confirm']);
  });
});

describe('results checked by shape', () => {
  it('a tools/list without a tools array names the server and the method, and the client keeps serving', async () => {
    const server = await raw((message) =>
      message.method === 'tools/list' && message.params?.cursor === undefined
        ? { resultType: 'complete' }
        : { resultType: 'complete', content: [{ type: 'text', text: 'still here' }] },
    );
    const client = await connect(server.url, { cache: false });
    const failure = client.listTools();
    await expect(failure).rejects.toMatchObject({ code: 'protocol_error' });
    await expect(failure).rejects.toThrow(/server "raw" .*answered tools\/list with no "tools" array/);
    const result = await client.callTool({ name: 'any' });
    expect(result.content).toEqual([{ type: 'text', text: 'still here' }]);
  });

  it.each([
    ['tools/list', { tools: [], nextCursor: 5 }, /nextCursor that is not a string/],
    ['tools/list', { tools: [7] }, /"tools" entry that is not an object/],
    ['prompts/list', { prompts: 'none' }, /no "prompts" array/],
    ['resources/list', { resources: {} }, /no "resources" array/],
    ['resources/templates/list', {}, /no "resourceTemplates" array/],
    ['tools/call', {}, /answered tools\/call with no "content" array/],
    ['tools/call', { content: [{ text: 'no type' }] }, /content block without a string "type"/],
  ])('%s answering %j is refused', async (method, result, message) => {
    const server = await raw(() => ({ resultType: 'complete', ...result }));
    const client = await connect(server.url, { cache: false });
    const calls: Record<string, () => Promise<unknown>> = {
      'tools/list': () => client.listTools(),
      'prompts/list': () => client.listPrompts(),
      'resources/list': () => client.listResources(),
      'resources/templates/list': () => client.listResourceTemplates(),
      'tools/call': () => client.callTool({ name: 'x' }),
    };
    await expect(calls[method]!()).rejects.toThrow(message);
  });

  it('a tools/call CreateTaskResult (resultType task, SEP-2663) is final; on any other method it is refused', async () => {
    const task = { taskId: 't1', status: 'working', ttlMs: 1000, pollIntervalMs: 10 };
    const server = await raw((message) => ({ resultType: 'task', ...task, method: message.method }));
    const client = await connect(server.url, { cache: false });
    const result = await client.request('tools/call', { name: 'slow', arguments: {} });
    expect(result).toMatchObject({ resultType: 'task', taskId: 't1', status: 'working' });
    const calls = server.seen.filter((request) => request.message.method === 'tools/call');
    expect(calls).toHaveLength(1);
    await expect(client.listTools()).rejects.toThrow(
      /answered tools\/list with task, which only tools\/call may/,
    );
  });

  it('a server/discover result with a malformed serverInfo fails the connect', async () => {
    const server = await startRawServer((_req, res, body) => {
      const message = JSON.parse(body);
      json(res, 200, { jsonrpc: '2.0', id: message.id, result: discoverResult({ serverInfo: 5 }) });
    });
    servers.push(server);
    await expect(connect(server.url)).rejects.toThrow(/answered server\/discover with a serverInfo without/);
  });

  it('an initialize result whose capabilities are not an object fails the connect', async () => {
    const server = await startRawServer((_req, res, body) => {
      const message = JSON.parse(body);
      if (message.id === undefined) return res.writeHead(202).end();
      const result = {
        protocolVersion: '2025-11-25',
        capabilities: 'all',
        serverInfo: { name: 'x', version: '1' },
      };
      json(res, 200, { jsonrpc: '2.0', id: message.id, result });
    });
    servers.push(server);
    await expect(connect(server.url, { protocolVersion: '2025-11-25' })).rejects.toThrow(
      /answered initialize with capabilities that are not an object/,
    );
  });
});

describe('list changes from the client', () => {
  it.each([
    ['stateless', MODERN_SERVER],
    ['handshake', LEGACY_SERVER],
  ])('%s era: a toolsListChanged listener gets the server’s changes without subscribe()', async (era, script) => {
    const fixture = await startHttpFixture(script, 'http');
    onTestFinished(() => fixture.close());
    const methods: string[] = [];
    const record: ClientMiddleware = async (context, next) => {
      methods.push(context.method);
      return next(context);
    };
    const client = await McpClient.connect(fixture.url, {
      ...freshCaches(),
      handlers: acceptingHandlers(),
      middleware: [record],
    });
    onTestFinished(() => client.close());
    expect(client.era).toBe(era);
    let events = 0;
    client.on('toolsListChanged', () => events++);
    await client.listChangesReady();
    fixture.command('tools-changed');
    await waitFor(() => events > 0);
    expect(events).toBe(1);
    // The stream is a request like any other: the user's middleware (an OAuth layer) sees it too.
    expect(methods.includes('subscriptions/listen')).toBe(era === 'stateless');
  });
});

describe('era and transport-kind caches', () => {
  async function legacyServer() {
    const methods: string[] = [];
    const server = await startRawServer((req, res, body) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const message = JSON.parse(body);
      methods.push(message.method);
      if (message.method === 'server/discover') return res.writeHead(400).end('Bad Request');
      if (message.id === undefined) return res.writeHead(202).end();
      const result = {
        protocolVersion: '2025-06-18',
        capabilities: {},
        serverInfo: { name: 'old', version: '1' },
      };
      json(res, 200, { jsonrpc: '2.0', id: message.id, result });
    });
    servers.push(server);
    return { server, methods };
  }

  it('clients sharing a cache probe once; a client with its own probes again; the default is untouched', async () => {
    const { server, methods } = await legacyServer();
    const shared = { eraCache: new EraCache(), transportKindCache: new TransportKindCache() };
    const probes = () => methods.filter((method) => method === 'server/discover').length;
    expect((await connect(server.url, shared)).era).toBe('handshake');
    expect(probes()).toBe(1);
    expect(shared.eraCache.get(targetKey(server.url))).toEqual({ era: 'handshake', version: '2025-06-18' });
    await connect(server.url, shared);
    expect(probes()).toBe(1);
    await connect(server.url, { eraCache: new EraCache() });
    expect(probes()).toBe(2);
    expect(defaultEraCache.get(targetKey(server.url))).toBeUndefined();
  });
});

describe('pid', () => {
  it('is the spawned server’s process id on stdio, and undefined over HTTP', async () => {
    const stderr: string[] = [];
    const stdio = await McpClient.connect(
      { command: process.execPath, args: [join(FIXTURES, 'client-raw-stdio-peer.mjs'), '--modern'] },
      { ...freshCaches(), onstderr: (line) => stderr.push(line) },
    );
    onTestFinished(() => stdio.close());
    await waitFor(() => stderr.some((line) => line.startsWith('started ')));
    const started = Number(stderr.find((line) => line.startsWith('started '))!.split(' ')[1]);
    expect(stdio.pid).toBe(started);
    const server = await raw(() => ({ resultType: 'complete', tools: [] }));
    expect((await connect(server.url)).pid).toBeUndefined();
  });
});
