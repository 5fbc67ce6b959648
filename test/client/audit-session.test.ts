/**
 * Handshake-era transports against raw node:http servers: session expiry under parallel load (one renewal
 * for many 404s, every read served on the new session), and the 2024-11-05 HTTP+SSE stream dying mid-call.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { SseClientTransport } from '../../src/transports/http/client/sse.js';
import { type RawServer, complete, freshCaches, json, sseEvent, startRawServer, waitFor } from './helpers.js';

const servers: RawServer[] = [];
let caches = freshCaches();
afterEach(async () => {
  caches = freshCaches();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sessionServer() {
  const live = new Set<string>();
  const log: string[] = [];
  let minted = 0;
  const server = await startRawServer((req, res, body) => {
    if (req.method === 'GET') return res.writeHead(405).end();
    if (req.method === 'DELETE') return res.writeHead(200).end();
    const message = JSON.parse(body);
    const sid = req.headers['mcp-session-id'] as string | undefined;
    log.push(`${message.method} ${sid ?? '-'}`);
    if (message.method === 'server/discover') return res.writeHead(400).end();
    if (message.method === 'initialize') {
      const id = `s${++minted}`;
      live.add(id);
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} } };
      return json(res, 200, complete(message.id, result), { 'mcp-session-id': id });
    }
    if (!sid || !live.has(sid)) return json(res, 404, { error: 'unknown session' });
    if (message.id === undefined) return res.writeHead(202).end();
    // Slow enough that parallel calls overlap on the wire.
    setTimeout(() => json(res, 200, complete(message.id, { tools: [{ name: sid, inputSchema: {} }] })), 30);
  });
  servers.push(server);
  return { server, log, expireAll: () => live.clear() };
}

describe('session expiry under parallel calls', () => {
  it('renews once for many 404s and tells the caller once', async () => {
    const { server, log, expireAll } = await sessionServer();
    const client = await McpClient.connect(server.url, { ...caches, cache: false });
    try {
      const expired: unknown[] = [];
      client.on('sessionExpired', (event) => expired.push(event));
      await client.listTools();
      expireAll();
      const lists = await Promise.all(Array.from({ length: 5 }, () => client.listTools()));
      // Every read was retried on the one new session.
      expect(lists.map((tools) => tools.map((t) => t.name))).toEqual(Array(5).fill(['s2']));
      expect(log.filter((line) => line.startsWith('initialize'))).toHaveLength(2);
      expect(expired).toEqual([{ sessionId: 's1' }]);
      expect(log.filter((line) => line === 'tools/list s2')).toHaveLength(5);
    } finally {
      await client.close();
    }
  });
});

describe('2024-11-05 HTTP+SSE', () => {
  it('falls back from Streamable HTTP once per endpoint, and rejects a pending call when the stream dies', async () => {
    let stream: ServerResponse | undefined;
    const posted: string[] = [];
    let streamableAttempts = 0;
    const server = await startRawServer((req, res, body) => {
      if (req.method === 'GET' && req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages?session=1\n\n');
        stream = res;
        return;
      }
      if (req.method !== 'POST' || !req.url?.startsWith('/messages')) {
        streamableAttempts++;
        return res.writeHead(404).end();
      }
      const message = JSON.parse(body);
      posted.push(message.method);
      res.writeHead(202).end();
      if (message.method === 'initialize' && stream) {
        const result = {
          protocolVersion: '2024-11-05',
          capabilities: {},
          serverInfo: { name: 'old', version: '1' },
        };
        sseEvent(stream, complete(message.id, result));
      }
    });
    servers.push(server);
    const url = server.url.replace(/\/mcp$/, '/sse');
    const client = await McpClient.connect(url, caches);
    // Streamable HTTP was tried first (server/discover, then initialize), both refused with 404.
    expect(streamableAttempts).toBe(2);
    try {
      expect(client.transportKind).toBe('sse');
      expect(client.protocolVersion).toBe('2024-11-05');
      const pending = client.callTool({ name: 'slow', arguments: {} });
      await waitFor(() => posted.includes('tools/call'));
      const started = Date.now();
      stream?.socket?.destroy();
      await expect(pending).rejects.toMatchObject({ code: 'connection_closed' });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(posted).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    } finally {
      await client.close();
    }
    // The endpoint is remembered as HTTP+SSE: a second client neither POSTs a probe nor re-detects.
    const again = await McpClient.connect(url, caches);
    await again.close();
    expect(again.transportKind).toBe('sse');
    expect(streamableAttempts).toBe(2);
  });

  it('a GET the server never answers fails the connect within the connect timeout', async () => {
    const server = await startRawServer(() => {});
    servers.push(server);
    const transport = new SseClientTransport(server.url, { connectTimeoutMs: 200 });
    const started = Date.now();
    await expect(transport.start()).rejects.toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1000);
    await transport.close();
  });
});
