/**
 * The client's HTTP behaviour against hand-written peers on 127.0.0.1: bytes on the wire (headers, SSE),
 * failures (a server dying mid-call, oversized responses), cancellation by closing the stream, MRTR limits,
 * caching, and handshake-era resumption.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultCache } from '../../src/client/cache.js';
import { McpClient } from '../../src/client/client.js';
import { type RawServer, discoverResult, freshCaches, json, startRawServer, waitFor } from './helpers.js';

type Handler = (
  req: IncomingMessage,
  message: Record<string, any>,
  res: Parameters<Parameters<typeof startRawServer>[0]>[1],
) => void;

const servers: RawServer[] = [];
const clients: McpClient[] = [];
let caches = freshCaches();
afterEach(async () => {
  caches = freshCaches();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A modern server: discover (and, unless `lists`, tools/list) answered, everything else to `handle`. Records
 * each request's headers and body.
 */
async function modernServer(handle: Handler, lists = false) {
  const seen: Array<{ headers: IncomingMessage['headers']; raw: string[]; message: Record<string, any> }> =
    [];
  const server = await startRawServer((req, res, body) => {
    if (req.method !== 'POST') return json(res, 405, {});
    const message = JSON.parse(body);
    seen.push({ headers: req.headers, raw: req.rawHeaders, message });
    if (message.method === 'server/discover')
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: discoverResult() });
    if (message.method === 'tools/list' && !lists) return json(res, 200, ok(message.id, { tools: [] }));
    handle(req, message, res);
  });
  servers.push(server);
  return { server, seen };
}

async function connect(url: string, options: Parameters<typeof McpClient.connect>[1] = {}) {
  const client = await McpClient.connect(url, { ...caches, ...options });
  clients.push(client);
  return client;
}

const ok = (id: unknown, result: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', ...result },
});

describe('request metadata on the wire', () => {
  it('mirrors method, name and x-mcp-header parameters, Base64 where unsafe; drops invalid tools', async () => {
    const warnings: string[] = [];
    const { server, seen } = await modernServer((_req, message, res) => {
      if (message.method === 'tools/list') {
        return json(
          res,
          200,
          ok(message.id, {
            tools: [
              {
                name: 'geo-lookup',
                inputSchema: {
                  type: 'object',
                  properties: {
                    region: { type: 'string', 'x-mcp-header': 'Region' },
                    n: { type: 'integer', 'x-mcp-header': 'N' },
                  },
                },
              },
              {
                name: 'broken',
                inputSchema: { type: 'object', properties: { v: { type: 'number', 'x-mcp-header': 'V' } } },
              },
            ],
          }),
        );
      }
      json(res, 200, ok(message.id, { content: [] }));
    }, true);
    const client = await connect(server.url, {
      logger: { debug() {}, warn: (m) => warnings.push(m), error() {} },
    });
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['geo-lookup']);
    expect(warnings.join('\n')).toMatch(/broken.*x-mcp-header/);
    await client.callTool({ name: 'geo-lookup', arguments: { region: 'Zürich ', n: 7 } });
    const call = seen.find((s) => s.message.method === 'tools/call');
    expect(call?.headers['mcp-method']).toBe('tools/call');
    expect(call?.headers['mcp-name']).toBe('geo-lookup');
    expect(call?.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(call?.headers['mcp-param-region']).toBe(`=?base64?${Buffer.from('Zürich ').toString('base64')}?=`);
    expect(call?.headers['mcp-param-n']).toBe('7');
    expect(call?.message.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(call?.message.params._meta['io.modelcontextprotocol/clientInfo']).toMatchObject({
      name: 'agentforge',
    });
    expect(call?.headers.accept).toBe('application/json, text/event-stream');
  });

  it('adds logLevel and traceparent to _meta when asked', async () => {
    const { server, seen } = await modernServer((_req, message, res) =>
      json(res, 200, ok(message.id, { content: [] })),
    );
    const client = await connect(server.url, { logLevel: 'warning' });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await client.callTool({ name: 'x', arguments: {} }, { traceparent });
    const meta = seen.find((s) => s.message.method === 'tools/call')?.message.params._meta;
    expect(meta['io.modelcontextprotocol/logLevel']).toBe('warning');
    expect(meta.traceparent).toBe(traceparent);
  });
});

describe('connection reuse', () => {
  it('sends sequential requests over pooled keep-alive connections', async () => {
    const { server } = await modernServer((_req, message, res) =>
      json(res, 200, ok(message.id, { content: [] })),
    );
    let connections = 0;
    server.server.on('connection', () => connections++);
    const client = await connect(server.url);
    for (let i = 0; i < 50; i++) await client.callTool({ name: 'x', arguments: { i } });
    expect(connections).toBeLessThanOrEqual(2);
  });

  it("sends one Host header (the caller's when given), and URL credentials as Authorization", async () => {
    const { server, seen } = await modernServer((_req, message, res) =>
      json(res, 200, ok(message.id, { content: [] })),
    );
    // rawHeaders: node keeps only the first of duplicate Host headers in req.headers.
    const rawHosts = () => {
      const raw = seen.at(-1)?.raw ?? [];
      return raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === 'host').join(' | ');
    };
    const port = new URL(server.url).port;
    const plain = await connect(server.url);
    await plain.callTool({ name: 'x' });
    expect(rawHosts()).toBe(`127.0.0.1:${port}`);
    const named = await connect(server.url, { headers: { Host: `localhost:${port}` } });
    await named.callTool({ name: 'x' });
    expect(rawHosts()).toBe(`localhost:${port}`);
    const withAuth = await connect(server.url.replace('http://', 'http://user:secret@'));
    await withAuth.callTool({ name: 'x' });
    expect(seen.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
    expect(rawHosts()).toBe(`127.0.0.1:${port}`);
  });
});

describe('HTTP failures', () => {
  it('fails fast with a transport error when nothing listens', async () => {
    const server = await startRawServer(() => {});
    const url = server.url;
    await server.close();
    const started = Date.now();
    await expect(McpClient.connect(url, caches)).rejects.toMatchObject({
      code: 'transport_error',
      message: /ECONNREFUSED/,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('rejects a call whose server dies mid-stream', async () => {
    const { server } = await modernServer((req, _message, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': working\n\n');
      setTimeout(() => req.socket.destroy(), 50);
    });
    const client = await connect(server.url);
    const started = Date.now();
    await expect(client.callTool({ name: 'x', arguments: {} })).rejects.toMatchObject({
      code: 'connection_closed',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses a response larger than the cap instead of buffering it', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const { server } = await modernServer((_req, message, res) => {
      if (message.params.name === 'sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(ok(message.id, { content: [{ type: 'text', text: big }] }))}\n\n`);
        return;
      }
      json(res, 200, ok(message.id, { content: [{ type: 'text', text: big }] }));
    });
    const client = await connect(server.url, { maxResponseBytes: 1024 * 1024 });
    await expect(client.callTool({ name: 'json', arguments: {} })).rejects.toMatchObject({
      code: 'response_too_large',
    });
    await expect(client.callTool({ name: 'sse', arguments: {} })).rejects.toMatchObject({
      code: 'response_too_large',
    });
  });

  it('cancels by closing the response stream, without a cancellation message', async () => {
    let closed = false;
    const { server, seen } = await modernServer((req, _message, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': started\n\n');
      req.socket.once('close', () => {
        closed = true;
      });
    });
    const client = await connect(server.url);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'x', arguments: {} }, { signal: controller.signal });
    await waitFor(() => seen.some((s) => s.message.method === 'tools/call'));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await waitFor(() => closed);
    expect(seen.some((s) => s.message.method === 'notifications/cancelled')).toBe(false);
  });

  it('an unknown resultType is an error; a missing one means complete', async () => {
    const { server } = await modernServer((_req, message, res) => {
      const result = message.params.name === 'odd' ? { resultType: 'mystery', content: [] } : { content: [] };
      json(res, 200, { jsonrpc: '2.0', id: message.id, result });
    });
    const client = await connect(server.url);
    await expect(client.callTool({ name: 'plain', arguments: {} })).resolves.toEqual({ content: [] });
    await expect(client.callTool({ name: 'odd', arguments: {} })).rejects.toMatchObject({
      code: 'protocol_error',
    });
  });
});

describe('MRTR limits', () => {
  it('echoes requestState byte for byte and stops after 10 rounds', async () => {
    const state = 'ünïcode\u0000 "state" 🚀';
    const received: unknown[] = [];
    const { server } = await modernServer((_req, message, res) => {
      received.push(message.params.requestState);
      json(res, 200, {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          resultType: 'input_required',
          requestState: state,
          inputRequests: { r: { method: 'roots/list' } },
        },
      });
    });
    const client = await connect(server.url, { handlers: { roots: () => [] } });
    await expect(client.callTool({ name: 'loop', arguments: {} })).rejects.toMatchObject({
      code: 'too_many_rounds',
    });
    expect(received).toHaveLength(10);
    expect(received[0]).toBeUndefined();
    expect(received.slice(1).every((value) => value === state)).toBe(true);
  });

  it('fails the call when the host cannot answer an input request', async () => {
    const { server } = await modernServer((_req, message, res) => {
      json(res, 200, {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          resultType: 'input_required',
          inputRequests: { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } },
        },
      });
    });
    const client = await connect(server.url);
    await expect(client.callTool({ name: 'x', arguments: {} })).rejects.toThrow(
      /cannot answer input request s/,
    );
  });
});

describe('subscriptions over HTTP', () => {
  it('listens again when the stream drops without a response, and delivers on the new stream', async () => {
    let listens = 0;
    const { server } = await modernServer((_req, message, res) => {
      listens++;
      const meta = { 'io.modelcontextprotocol/subscriptionId': message.id };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ack = {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: meta, notifications: { toolsListChanged: true } },
      };
      res.write(`data: ${JSON.stringify(ack)}\n\n`);
      if (listens === 1) return void setTimeout(() => res.socket?.destroy(), 20);
      const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta } };
      setTimeout(() => res.write(`data: ${JSON.stringify(changed)}\n\n`), 20);
    });
    const client = await connect(server.url);
    const received: string[] = [];
    const subscription = await client.subscribe({ toolsListChanged: true }, (n) => received.push(n.method));
    await waitFor(() => received.length > 0);
    expect(listens).toBe(2);
    expect(received).toEqual(['notifications/tools/list_changed']);
    await subscription.close();
    await subscription.closed;
  });
});

describe('caching', () => {
  it('serves fresh results from the cache; a shared cache keeps only public ones', async () => {
    let lists = 0;
    let reads = 0;
    const { server } = await modernServer((_req, message, res) => {
      if (message.method === 'tools/list') {
        lists++;
        return json(res, 200, ok(message.id, { tools: [], ttlMs: 60_000, cacheScope: 'private' }));
      }
      reads++;
      json(res, 200, ok(message.id, { contents: [], ttlMs: 60_000, cacheScope: 'public' }));
    }, true);
    const client = await connect(server.url);
    await client.listTools();
    await client.listTools();
    expect(lists).toBe(1);
    const shared = new ResultCache({ shared: true });
    const sharing = await connect(server.url, { cache: shared });
    await sharing.listTools();
    await sharing.listTools();
    expect(lists).toBe(3);
    await sharing.readResource({ uri: 'a://b' });
    await sharing.readResource({ uri: 'a://b' });
    await sharing.readResource({ uri: 'a://c' });
    expect(reads).toBe(2);
  });
});

describe('era detection over HTTP', () => {
  /** A legacy Streamable HTTP server (no sessions) that counts what it is asked. */
  async function legacyServer(status = 400) {
    const methods: string[] = [];
    const server = await startRawServer((req, res, body) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const message = JSON.parse(body);
      methods.push(message.method);
      if (message.method === 'server/discover') return res.writeHead(status).end('Bad Request');
      if (message.id === undefined) return res.writeHead(202).end();
      if (message.method === 'initialize') {
        return json(
          res,
          200,
          ok(message.id, {
            protocolVersion: '2025-06-18',
            capabilities: {},
            serverInfo: { name: 'old', version: '1' },
          }),
        );
      }
      json(res, 200, ok(message.id, { tools: [] }));
    });
    servers.push(server);
    return { server, methods };
  }

  it('falls back on a 4xx without a modern body, then remembers the era for the endpoint', async () => {
    const { server, methods } = await legacyServer();
    const first = await connect(server.url);
    expect(first.era).toBe('handshake');
    expect(first.protocolVersion).toBe('2025-06-18');
    const second = await connect(server.url);
    expect(second.era).toBe('handshake');
    expect(methods.filter((m) => m === 'server/discover')).toHaveLength(1);
    expect(methods.filter((m) => m === 'initialize')).toHaveLength(2);
  });

  it('does not read an authentication failure as a legacy server', async () => {
    const { server, methods } = await legacyServer(401);
    await expect(connect(server.url)).rejects.toMatchObject({ status: 401 });
    expect(methods).toEqual(['server/discover']);
  });
});

describe('handshake-era Streamable HTTP', () => {
  it('cancels with notifications/cancelled (a dropped stream is not a cancellation before 2026-07-28)', async () => {
    const posted: Array<Record<string, any>> = [];
    const server = await startRawServer((req, res, body) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const message = JSON.parse(body);
      posted.push(message);
      if (message.method === 'server/discover') return res.writeHead(400).end();
      if (message.id === undefined) return res.writeHead(202).end();
      if (message.method === 'initialize') {
        return json(
          res,
          200,
          ok(message.id, {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 'l', version: '1' },
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': working\n\n');
    });
    servers.push(server);
    const client = await connect(server.url);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'x', arguments: {} }, { signal: controller.signal });
    await waitFor(() => posted.some((m) => m.method === 'tools/call'));
    controller.abort('stop');
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    const callId = posted.find((m) => m.method === 'tools/call')?.id;
    await waitFor(() => posted.some((m) => m.method === 'notifications/cancelled'));
    expect(posted.find((m) => m.method === 'notifications/cancelled')?.params).toEqual({
      requestId: callId,
      reason: 'stop',
    });
  });

  it('resumes a dropped request stream with GET and Last-Event-ID after the retry delay', async () => {
    const events: string[] = [];
    let pendingId: unknown;
    let droppedAt = 0;
    const server = await startRawServer((req, res, body) => {
      const session = { 'mcp-session-id': 'session-1' };
      if (req.method === 'GET') {
        const last = req.headers['last-event-id'];
        events.push(`GET ${last ?? '-'} after ${last ? Date.now() - droppedAt : 0}`);
        res.writeHead(200, { 'content-type': 'text/event-stream', ...session });
        if (last && pendingId !== undefined)
          res.write(`id: e2\ndata: ${JSON.stringify(ok(pendingId, { content: [] }))}\n\n`);
        return;
      }
      if (req.method === 'DELETE') return res.writeHead(200).end();
      const message = JSON.parse(body);
      events.push(
        `POST ${message.method} session=${req.headers['mcp-session-id'] ?? '-'} version=${req.headers['mcp-protocol-version'] ?? '-'}`,
      );
      if (message.method === 'server/discover') return json(res, 404, { error: 'not found' });
      if (message.method === 'initialize') {
        return json(
          res,
          200,
          ok(message.id, {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'legacy', version: '1' },
          }),
          session,
        );
      }
      if (message.id === undefined) return res.writeHead(202, session).end();
      pendingId = message.id;
      res.writeHead(200, { 'content-type': 'text/event-stream', ...session });
      res.write('id: e1\nretry: 300\ndata: \n\n');
      setTimeout(() => {
        droppedAt = Date.now();
        res.end();
      }, 30);
    });
    servers.push(server);
    const client = await connect(server.url, { transport: 'streamable-http' });
    expect(client.era).toBe('handshake');
    await expect(client.callTool({ name: 'x', arguments: {} })).resolves.toEqual({
      resultType: 'complete',
      content: [],
    });
    const resumed = events.find((e) => e.startsWith('GET e1'));
    expect(resumed).toBeDefined();
    expect(Number(/after (\d+)/.exec(resumed ?? '')?.[1])).toBeGreaterThanOrEqual(290);
    expect(events).toContain('POST tools/call session=session-1 version=2025-11-25');
  });
});
