// Benchmark server on the official SDK v2 (@modelcontextprotocol/server 2.4.x), written the way its docs do:
// serveStdio(factory) for stdio, createMcpHandler(factory) for 2026-07-28 HTTP, and a sessionful
// WebStandardStreamableHTTPServerTransport for legacy sessions. On node:http the web handler is mounted
// with @hono/node-server's getRequestListener (what the SDK's own node adapters use).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import {
  createMcpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { announcePort, parseServerArgs } from '../lib/tools.mjs';
import { registerZodTools } from '../lib/zod-tools.mjs';

const opts = parseServerArgs();
const build = () => {
  const server = new McpServer({ name: 'bench-sdk2', version: '2.0.0' });
  registerZodTools(server, opts);
  return server;
};

if (opts.transport === 'stdio') {
  serveStdio(build);
} else if (opts.mode === 'modern') {
  const handler = createMcpHandler(build, { legacy: 'reject' });
  const httpServer = http.createServer(getRequestListener((request) => handler.fetch(request)));
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(0, '127.0.0.1', () => announcePort(httpServer));
} else {
  const sessions = new Map();
  const listener = getRequestListener(async (request) => {
    const id = request.headers.get('mcp-session-id');
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    return transport.handleRequest(request);
  });
  const httpServer = http.createServer(listener);
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(0, '127.0.0.1', () => announcePort(httpServer));
}
