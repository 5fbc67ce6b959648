import { type ChildProcess, spawn } from 'node:child_process';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache, TransportKindCache } from '../../src/client/server-caches.js';
import type { ClientHandlers, ClientOptions } from '../../src/client/types.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
export const MODERN_SERVER = join(FIXTURES, 'client-modern-server.mjs');
export const LEGACY_SERVER = join(FIXTURES, 'client-legacy-server.mjs');
export const EVERYTHING_SERVER = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

/** Host handlers that answer like a user who accepts and a model that says "hi". */
export function acceptingHandlers(seen: string[] = []): ClientHandlers {
  return {
    elicitation: async (params) => {
      seen.push(`elicitation:${params.message}`);
      return { action: 'accept', content: { ok: true } };
    },
    sampling: async () => {
      seen.push('sampling');
      return {
        role: 'assistant',
        content: { type: 'text', text: 'hi' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    },
    roots: async () => {
      seen.push('roots');
      return [{ uri: 'file:///workspace', name: 'workspace' }];
    },
  };
}

export interface HttpFixture {
  readonly url: string;
  readonly child: ChildProcess;
  command(text: string): void;
  close(): Promise<void>;
}

/** Starts an HTTP fixture server (a real child process) and waits for its "PORT <n>" line. */
export async function startHttpFixture(script: string, mode: string): Promise<HttpFixture> {
  const child = spawn(process.execPath, [script, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}: ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    command: (text) => child.stdin?.write(`${text}\n`),
    close: () => killChild(child),
  };
}

export function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export interface RawServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** A hand-written HTTP peer on 127.0.0.1 for byte-level checks (headers, SSE framing, failures). */
export async function startRawServer(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<RawServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

/** A minimal modern server body: discover plus caller-supplied methods. */
export function discoverResult(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {}, resources: {} },
    serverInfo: { name: 'raw', version: '1.0.0' },
    ttlMs: 0,
    cacheScope: 'private',
    ...extra,
  };
}

export async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface SeenRequest {
  headers: IncomingMessage['headers'];
  message: Record<string, any>;
}

/**
 * A raw 2026-07-28 server on 127.0.0.1: answers server/discover itself, hands every other POST to `handle`,
 * answers GET/DELETE with 405, and records each POST's headers and parsed body in `seen`.
 */
export async function startModernRaw(
  handle: (message: Record<string, any>, res: ServerResponse, req: IncomingMessage) => void,
): Promise<RawServer & { seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = await startRawServer((req, res, body) => {
    if (req.method !== 'POST') return res.writeHead(405).end();
    const message = JSON.parse(body);
    seen.push({ headers: req.headers, message });
    if (message.method === 'server/discover')
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: discoverResult() });
    handle(message, res, req);
  });
  return Object.assign(server, { seen });
}

export const complete = (id: unknown, result: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', ...result },
});

/** Writes one JSON-RPC message as an SSE event. */
export function sseEvent(res: ServerResponse, message: unknown, id?: string): void {
  res.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`);
}

/** Era and transport-kind caches of a test's own: its clients detect afresh, whatever others learned. */
export function freshCaches(): Pick<ClientOptions, 'eraCache' | 'transportKindCache'> {
  return { eraCache: new EraCache(), transportKindCache: new TransportKindCache() };
}

/**
 * Raw 2026-07-28 peers and clients of one test file, all closed after each test. Each test's clients share
 * caches of their own (`caches()`), so every test detects afresh.
 */
export function rawPeerScope() {
  const servers: RawServer[] = [];
  const clients: McpClient[] = [];
  let caches = freshCaches();
  afterEach(async () => {
    caches = freshCaches();
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const serve = async (handle: Parameters<typeof startModernRaw>[0]) => {
    const server = await startModernRaw(handle);
    servers.push(server);
    return server;
  };
  const connect = async (url: string, options: ClientOptions = {}) => {
    const client = await McpClient.connect(url, { ...caches, ...options });
    clients.push(client);
    return client;
  };
  return { servers, clients, serve, connect, caches: () => caches };
}
