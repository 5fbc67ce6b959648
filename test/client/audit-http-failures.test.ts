/**
 * Failure behaviour over real HTTP on 127.0.0.1 (raw node:http peers): timeouts that close the stream, the
 * retry rules (reads once, tools/call only when asked), truncated and oversized bodies at the default 16 MiB
 * cap, and the handshake-era session: initialized, version check, DELETE, bounded reconnects.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { complete, json, startRawServer, waitFor, rawPeerScope } from './helpers.js';

const { servers, serve, connect, caches } = rawPeerScope();

const MiB = 1024 * 1024;

describe('timeouts and retries over HTTP', () => {
  it('a per-request timeout rejects in time and closes the response stream', async () => {
    let closed = false;
    const server = await serve((message, res, req) => {
      if (message.method === 'tools/list') return json(res, 200, complete(message.id, { tools: [] }));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': thinking\n\n');
      req.socket.once('close', () => {
        closed = true;
      });
    });
    const client = await connect(server.url);
    const started = Date.now();
    await expect(client.callTool({ name: 'x', arguments: {} }, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    await waitFor(() => closed, 2000);
  });

  it('retries a read once after a dropped connection, never a tools/call unless opted in', async () => {
    const drops = new Set([
      'tools/list#1',
      'resources/read#1',
      'resources/read#2',
      'tools/call#1',
      'tools/call#2',
    ]);
    const counts: Record<string, number> = {};
    const server = await serve((message, res, req) => {
      counts[message.method] = (counts[message.method] ?? 0) + 1;
      if (drops.has(`${message.method}#${counts[message.method]}`)) return req.socket.destroy();
      if (message.method === 'tools/list') return json(res, 200, complete(message.id, { tools: [] }));
      json(res, 200, complete(message.id, { content: [] }));
    });
    const client = await connect(server.url);
    await expect(client.listTools()).resolves.toEqual([]);
    expect(counts['tools/list']).toBe(2);
    // Dropped twice: one retry only, then the failure reaches the caller.
    await expect(client.readResource({ uri: 'x://a' })).rejects.toMatchObject({
      code: 'transport_error',
      message: /socket hang up/,
    });
    expect(counts['resources/read']).toBe(2);
    await expect(client.callTool({ name: 'pay', arguments: {} })).rejects.toMatchObject({
      code: 'transport_error',
    });
    expect(counts['tools/call']).toBe(1);
    await expect(client.callTool({ name: 'pay', arguments: {} }, { retry: true })).resolves.toMatchObject({
      content: [],
    });
    expect(counts['tools/call']).toBe(3);
  });
});

describe('broken and oversized responses', () => {
  it('rejects a JSON body cut off by a dying server', async () => {
    const server = await serve((message, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write(`{"jsonrpc":"2.0","id":${message.id},"result":{`);
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const client = await connect(server.url);
    const started = Date.now();
    await expect(client.callTool({ name: 'x', arguments: {} })).rejects.toMatchObject({
      code: 'connection_closed',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  /** Streams `bytes` of body in 64 KiB chunks without a content-length, unless the client hangs up first. */
  function stream(res: ServerResponse, type: string, prefix: string, bytes: number): void {
    res.writeHead(200, { 'content-type': type });
    res.write(prefix);
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const pump = () => {
      while (sent < bytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  }

  it('refuses 20 MiB at the default 16 MiB cap (JSON, one SSE event, declared length) and keeps serving', async () => {
    const server = await serve((message, res) => {
      const name = message.params?.name;
      if (name === 'json')
        return stream(
          res,
          'application/json',
          `{"jsonrpc":"2.0","id":${message.id},"result":{"x":"`,
          20 * MiB,
        );
      if (name === 'sse') return stream(res, 'text/event-stream', 'data: {"x":"', 20 * MiB);
      if (name === 'declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(20 * MiB) });
        return void res.write('{');
      }
      json(res, 200, complete(message.id, { content: [{ type: 'text', text: 'small' }] }));
    });
    const client = await connect(server.url);
    for (const name of ['json', 'sse', 'declared']) {
      const started = Date.now();
      await expect(client.callTool({ name, arguments: {} }), name).rejects.toMatchObject({
        code: 'response_too_large',
        data: { maxBytes: 16 * MiB },
      });
      expect(Date.now() - started, name).toBeLessThan(5000);
    }
    await expect(client.callTool({ name: 'ok', arguments: {} })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'small' }],
    });
  });
});

describe('handshake-era Streamable HTTP session', () => {
  interface Options {
    chosenVersion?: string;
    /**
     * Answer for GET: 'stream' keeps an SSE stream open, 'flap' ends it at once (retry 20 ms), 'events' sends one
     * log notification with a fresh event id and then ends (retry 20 ms), 'hold' never answers, or a status.
     */
    get?: 'stream' | 'flap' | 'events' | 'hold' | number;
    /** A request stream that ends after one event, never answering (for resumption). */
    dropCalls?: boolean;
    /** Never answer the POST of notifications/initialized. */
    holdInitialized?: boolean;
  }

  async function sessionServer(options: Options = {}) {
    const log: string[] = [];
    const session = { 'mcp-session-id': 'abc-123' };
    const server = await startRawServer((req: IncomingMessage, res: ServerResponse, body: string) => {
      const sid = req.headers['mcp-session-id'] ?? '-';
      if (req.method !== 'POST') {
        log.push(`${req.method} ${sid} ${req.headers['last-event-id'] ?? '-'}`);
        if (req.method === 'DELETE') return res.writeHead(200).end();
        // A resumption (Last-Event-ID) that ends at once without the answer, when calls are dropped.
        if (options.dropCalls && req.headers['last-event-id']) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return res.end('retry: 20\n\n');
        }
        if (options.get === 'hold') return;
        if (options.get === 'events') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const note = {
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: 'tick' },
          };
          return res.end(`retry: 20\nid: g${log.length}\ndata: ${JSON.stringify(note)}\n\n`);
        }
        if (options.get === 'flap') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return res.end('retry: 20\n\n');
        }
        if (options.get === 'stream')
          return res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
        return res.writeHead(options.get ?? 405).end();
      }
      const message = JSON.parse(body);
      log.push(`POST ${message.method} ${sid}`);
      if (message.method === 'server/discover') return res.writeHead(400).end();
      if (message.method === 'initialize') {
        const result = { protocolVersion: options.chosenVersion ?? '2025-11-25', capabilities: {} };
        return json(res, 200, complete(message.id, result), session);
      }
      if (message.id === undefined) return options.holdInitialized ? undefined : res.writeHead(202).end();
      if (options.dropCalls && message.method === 'tools/call') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return res.end('id: ev-1\nretry: 20\ndata: \n\n');
      }
      json(res, 200, complete(message.id, { tools: [] }));
    });
    servers.push(server);
    return { server, log };
  }

  it('sends notifications/initialized right after initialize, keeps the session id, DELETEs it on close', async () => {
    const { server, log } = await sessionServer();
    const client = await McpClient.connect(server.url, caches());
    await client.listTools();
    await client.close();
    const posts = log.filter((line) => line.startsWith('POST'));
    expect(posts).toEqual([
      'POST server/discover -',
      'POST initialize -',
      'POST notifications/initialized abc-123',
      'POST tools/list abc-123',
    ]);
    await waitFor(() => log.includes('DELETE abc-123 -'));
  });

  it('fails the connect in time when the server never answers the initialized notification', async () => {
    const { server } = await sessionServer({ holdInitialized: true });
    const started = Date.now();
    await expect(
      McpClient.connect(server.url, { ...caches(), initializeTimeoutMs: 300 }),
    ).rejects.toMatchObject({
      code: 'timeout',
      message: /initialized/,
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('rejects a server that chooses a version this client does not speak', async () => {
    const { server } = await sessionServer({ chosenVersion: '2023-01-01' });
    await expect(McpClient.connect(server.url, caches())).rejects.toMatchObject({
      code: 'protocol_error',
      message: /2023-01-01/,
    });
  });

  it('gives up resuming a request stream after a bounded number of GETs with Last-Event-ID', async () => {
    const { server, log } = await sessionServer({ dropCalls: true, get: 'stream' });
    const client = await connect(server.url);
    log.length = 0;
    const started = Date.now();
    await expect(client.callTool({ name: 'x', arguments: {} })).rejects.toMatchObject({
      code: 'connection_closed',
      message: /resume/,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(log.filter((line) => line === 'GET abc-123 ev-1')).toHaveLength(5);
  });

  it.each([
    ['500', 500],
    ['an empty stream', 'flap'],
  ] as const)('stops reconnecting the GET stream after 5 failures in a row (%s)', async (_name, get) => {
    const { server, log } = await sessionServer({ get });
    const client = await connect(server.url);
    // The 'flap' stream's `retry: 20` is honoured: five attempts take well under the default 1 s each.
    await waitFor(
      () => log.filter((line) => line.startsWith('GET')).length >= 5,
      get === 'flap' ? 1000 : 10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, get === 'flap' ? 300 : 1500));
    expect(log.filter((line) => line.startsWith('GET'))).toHaveLength(5);
    // The session still works without its GET stream.
    await expect(client.listTools()).resolves.toEqual([]);
  });

  it('reconnects the GET stream with Last-Event-ID, and streams that deliver events keep it going', async () => {
    const { server, log } = await sessionServer({ get: 'events' });
    const client = await connect(server.url);
    const ticks: unknown[] = [];
    client.on('log', (entry) => ticks.push(entry.data));
    await waitFor(() => log.filter((line) => line.startsWith('GET')).length >= 8, 3000);
    const gets = log.filter((line) => line.startsWith('GET'));
    // Each reconnect names the id of the event the previous stream ended with.
    expect(gets[0]).toBe('GET abc-123 -');
    for (let i = 1; i < gets.length; i++) expect(gets[i]).toMatch(/^GET abc-123 g\d+$/);
    expect(ticks.length).toBeGreaterThanOrEqual(7);
  });

  it('subscribe does not hang on a GET stream the server never answers', async () => {
    const { server } = await sessionServer({ get: 'hold' });
    const client = await connect(server.url, { initializeTimeoutMs: 300 });
    const started = Date.now();
    const subscription = await client.subscribe({ toolsListChanged: true }, () => {});
    expect(Date.now() - started).toBeLessThan(1500);
    await subscription.close();
  });
});
