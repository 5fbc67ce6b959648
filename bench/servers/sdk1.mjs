// Benchmark server on the official SDK v1 (@modelcontextprotocol/sdk 1.x), written the way its README does.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { announcePort, parseServerArgs } from '../lib/tools.mjs';
import { registerZodTools } from '../lib/zod-tools.mjs';

const opts = parseServerArgs();
const build = () => {
  const server = new McpServer({ name: 'bench-sdk1', version: '1.0.0' });
  registerZodTools(server, opts);
  return server;
};

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

if (opts.transport === 'stdio') {
  await build().connect(new StdioServerTransport());
} else if (opts.mode === 'modern') {
  // v1 has no 2026-07-28 support: its stateless pattern (a fresh server and transport per request,
  // sessionIdGenerator undefined) is the closest equivalent.
  const httpServer = http.createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(0, '127.0.0.1', () => announcePort(httpServer));
} else {
  // Legacy session mode: one server and transport per Mcp-Session-Id.
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(0, '127.0.0.1', () => announcePort(httpServer));
}
