/**
 * How the client reads a JSON response body on node:http: a body that came with its headers is taken at once
 * (bufferedBody), a body still arriving is read as it comes, and the byte cap holds on both paths; the
 * keep-alive socket goes back to the pool either way.
 */
import http, { type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { bufferedBody, openRequest } from '../../src/transports/http/client/node-http.js';
import { type RawServer, discoverResult, freshCaches, json, startRawServer } from './helpers.js';

const servers: RawServer[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const result = (id: unknown, text: string) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', content: [{ type: 'text', text }] },
});

/** A modern server whose tools/call answers are written by `answer`. */
async function modernServer(answer: (res: http.ServerResponse, message: Record<string, any>) => void) {
  const server = await startRawServer((_req, res, body) => {
    const message = JSON.parse(body);
    if (message.method === 'server/discover')
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: discoverResult() });
    if (message.method === 'tools/list')
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: { tools: [] } });
    answer(res, message);
  });
  servers.push(server);
  return server;
}

async function connect(url: string, options: Parameters<typeof McpClient.connect>[1] = {}) {
  const client = await McpClient.connect(url, { ...freshCaches(), ...options });
  clients.push(client);
  return client;
}

describe('bufferedBody', () => {
  it('takes a body that came with its headers at once, and the response still ends (socket pooled)', async () => {
    const server = await startRawServer((_req, res) => json(res, 200, { hello: 'world' }));
    servers.push(server);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 2; i++) {
        const opened = openRequest(new URL(server.url), { method: 'POST', headers: {}, body: '{}', agent });
        const response: IncomingMessage = await opened.response;
        expect(bufferedBody(response, 1024)).toBe('{"hello":"world"}');
        await new Promise((resolve) => response.once('end', resolve));
      }
      // Both requests went over one socket: the first went back to the pool once its body was taken.
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    } finally {
      agent.destroy();
    }
  });

  it('leaves a body still arriving, or one over the cap, to the streaming reader', async () => {
    let release: () => void = () => {};
    const server = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      release = () => res.end('{"late":true}');
    });
    servers.push(server);
    const late = await openRequest(new URL(server.url), { method: 'POST', headers: {}, body: '{}' }).response;
    expect(bufferedBody(late, 1024)).toBeUndefined();
    release();
    const small = await startRawServer((_req, res) => json(res, 200, { pad: 'x'.repeat(200) }));
    servers.push(small);
    const big = await openRequest(new URL(small.url), { method: 'POST', headers: {}, body: '{}' }).response;
    expect(bufferedBody(big, 100)).toBeUndefined();
    big.resume();
  });
});

describe('JSON answers through the client', () => {
  it('reads an answer whose body comes after its headers', async () => {
    const server = await modernServer((res, message) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      setTimeout(() => res.end(JSON.stringify(result(message.id, 'late'))), 50);
    });
    const client = await connect(server.url);
    const answer = await client.callTool({ name: 'echo', arguments: {} });
    expect(answer.content).toEqual([{ type: 'text', text: 'late' }]);
  });

  it('refuses an answer over the cap that came whole with its headers (no Content-Length)', async () => {
    const server = await modernServer((res, message) => {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.end(JSON.stringify(result(message.id, 'x'.repeat(4096))));
    });
    const client = await connect(server.url, { maxResponseBytes: 2048 });
    await expect(client.callTool({ name: 'echo', arguments: {} })).rejects.toMatchObject({
      code: 'response_too_large',
    });
    // The client keeps working after the refusal.
    await expect(client.callTool({ name: 'echo', arguments: {} })).rejects.toMatchObject({
      code: 'response_too_large',
    });
  });
});
