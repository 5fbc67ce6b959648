/**
 * One POST of the Streamable HTTP client transport, driven by callbacks: what a request costs the transport (one
 * promise, whatever the mode), and how a request ends when node refuses it, when it is cancelled before it is
 * written or before its body is in, and when its answer is delivered. `cancelRequest` answers false once the
 * transport holds nothing for an id any more.
 */
import { createHook } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCRequest } from '../../src/jsonrpc/messages.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import type { StreamableHttpClientOptions } from '../../src/transports/http/client/options.js';
import { type RawServer, json, startRawServer, waitFor } from './helpers.js';

const servers: RawServer[] = [];
const transports: StreamableHttpClientTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const answer = (id: unknown, result: Record<string, unknown>) => ({ jsonrpc: '2.0', id, result });

/** A server answering every POST with a JSON result (tools/list: one tool), or handing it to `hold`. */
async function server(hold?: (message: Record<string, any>, res: ServerResponse) => boolean) {
  const posted: Array<Record<string, any>> = [];
  const raw = await startRawServer((req, res, body) => {
    if (req.method !== 'POST') return json(res, 405, {});
    const message = JSON.parse(body);
    posted.push(message);
    if (hold?.(message, res)) return;
    if (message.method === 'tools/list')
      return json(
        res,
        200,
        answer(message.id, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }),
      );
    json(res, 200, answer(message.id, { ok: true }), { 'mcp-session-id': 'session-1' });
  });
  servers.push(raw);
  return { url: raw.url, posted };
}

function transportTo(url: string, options: StreamableHttpClientOptions = {}) {
  const transport = new StreamableHttpClientTransport(url, options);
  const received: unknown[] = [];
  transport.onmessage = (message) => received.push(message);
  transports.push(transport);
  return { transport, received };
}

const request = (id: number, method: string, params: Record<string, unknown> = {}): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: META },
});

/** Promises created by the transport's own code (by their creation stack) while `run` is in progress. */
async function transportPromises(run: () => Promise<void>): Promise<number> {
  let count = 0;
  const limit = Error.stackTraceLimit;
  const hook = createHook({
    init(_id, type) {
      if (type !== 'PROMISE') return;
      Error.stackTraceLimit = 40;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      if (stack.includes('transports/http/client/')) count++;
    },
  });
  hook.enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return count;
}

describe('one POST of the HTTP client transport', () => {
  it('costs the transport one promise per request and delivers the answer before it settles', async () => {
    const { url } = await server();
    const { transport, received } = transportTo(url);
    await transport.send(request(1, 'tools/list'));
    // A tools/call (header mirroring), a request no mirroring sees, and the same in session mode.
    const call = await transportPromises(() =>
      transport.send(request(2, 'tools/call', { name: 'echo', arguments: {} })),
    );
    const ping = await transportPromises(() => transport.send(request(3, 'ping')));
    const session = transportTo(url, { mode: 'session' });
    session.transport.protocolVersion = '2025-11-25';
    const legacy = await transportPromises(() =>
      session.transport.send({ jsonrpc: '2.0', id: 4, method: 'ping' }),
    );
    expect([call, ping, legacy]).toEqual([1, 1, 1]);
    expect(received.map((message) => (message as { id: number }).id)).toEqual([1, 2, 3]);
    expect(session.received).toEqual([answer(4, { ok: true })]);
    expect(session.transport.sessionId).toBe('session-1');
    for (const id of [1, 2, 3]) expect(transport.cancelRequest(id)).toBe(false);
  });

  it('rejects a request node refuses (a header value with a line break) and holds nothing for it', async () => {
    const { url, posted } = await server();
    const { transport } = transportTo(url, { requestHeaders: () => ({ 'x-bad': 'a\r\nb' }) });
    await expect(transport.send(request(1, 'ping'))).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(transport.cancelRequest(1)).toBe(false);
    expect(posted).toEqual([]);
  });

  it('never writes a request cancelled while the header hook runs, and ends it quietly', async () => {
    const { url, posted } = await server();
    let release: (headers: Record<string, string>) => void = () => {};
    const { transport } = transportTo(url, {
      httpHeaders: () => new Promise((resolve) => (release = resolve)),
    });
    const sent = transport.send(request(1, 'ping'));
    expect(transport.cancelRequest(1)).toBe(true);
    release({ authorization: 'Bearer x' });
    await expect(sent).resolves.toBeUndefined();
    expect(transport.cancelRequest(1)).toBe(false);
    expect(posted).toEqual([]);
  });

  it('ends quietly when cancelled after the head, before the body is in', async () => {
    let headSent = false;
    const { url } = await server((message, res) => {
      if (message.method !== 'ping') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      headSent = true;
      return true;
    });
    const { transport, received } = transportTo(url);
    const sent = transport.send(request(1, 'ping'));
    await waitFor(() => headSent);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(transport.cancelRequest(1)).toBe(true);
    await expect(sent).resolves.toBeUndefined();
    expect(transport.cancelRequest(1)).toBe(false);
    expect(received).toEqual([]);
  });

  it('rejects with the network failure when nothing listens, and holds nothing for the request', async () => {
    const { url } = await server();
    await servers.splice(0)[0]?.close();
    const { transport } = transportTo(url);
    await expect(transport.send(request(1, 'ping'))).rejects.toMatchObject({ code: 'transport_error' });
    expect(transport.cancelRequest(1)).toBe(false);
  });
});

const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!openssl)(
  'an https: endpoint (a real HTTPS server; needs openssl for its certificate)',
  () => {
    it('speaks TLS by the URL alone, and refuses an agent of the other protocol', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agentforge-post-'));
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      execFileSync(
        'openssl',
        // biome-ignore format: one option and its value a line would take twenty.
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext',
        'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert],
        { stdio: 'ignore' },
      );
      const ca = readFileSync(cert);
      const server = https.createServer({ key: readFileSync(key), cert: ca }, (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on('end', () => json(res, 200, answer(JSON.parse(body).id, { ok: true })));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const agent = new https.Agent({ ca, keepAlive: true });
      try {
        const trusted = transportTo(url, { agent });
        await trusted.transport.send(request(1, 'ping'));
        expect(trusted.received).toEqual([answer(1, { ok: true })]);
        // The shared agent does not trust the test's certificate: the TLS handshake is what fails.
        const shared = transportTo(url);
        await expect(shared.transport.send(request(2, 'ping'))).rejects.toMatchObject({
          code: 'transport_error',
          message: expect.stringMatching(/self[- ]signed|certificate/i),
        });
        const wrong = transportTo(url, { agent: new http.Agent() });
        await expect(wrong.transport.send(request(3, 'ping'))).rejects.toMatchObject({
          code: 'ERR_INVALID_PROTOCOL',
        });
      } finally {
        agent.destroy();
        await new Promise((resolve) => server.close(resolve));
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
