import { afterEach, describe, expect, it } from 'vitest';
import { type FetchHandler, createFetchHandler } from '../../src/server/http.js';
import { TestServer } from './http/dispatcher.js';
import { jsonHeaders, modern, readSse } from './http/helpers.js';

const URL_BASE = 'http://localhost:8787/mcp';
let handler: FetchHandler | undefined;
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

function request(body: unknown, headers: Record<string, string>, init: RequestInit = {}): Request {
  return new Request(URL_BASE, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

describe('createFetchHandler: the same logic behind (Request) => Promise<Response>', () => {
  it('answers JSON, streams SSE, validates headers', async () => {
    const server = new TestServer();
    handler = createFetchHandler(server, { keepAliveMs: 0 });
    const list = modern('tools/list');
    const json = await handler(request(list.body, list.headers));
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ result: { tools: expect.any(Array) } });
    const prog = modern('tools/call', { name: 'progress', arguments: {} });
    const sse = await handler(request(prog.body, prog.headers));
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    const { events } = await readSse(sse);
    expect(events).toHaveLength(4);
    const mismatch = await handler(request(list.body, { ...list.headers, 'mcp-method': 'tools/call' }));
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error: { code: -32020 } });
    expect(server.calls.map((c) => c.method)).toEqual(['tools/list', 'tools/call']);
  });

  it('applies the security list: foreign Origin 403, body cap 413 (streamed), 415, -32700', async () => {
    handler = createFetchHandler(new TestServer(), { maxBodyBytes: 1024 });
    const list = modern('tools/list');
    expect(
      (await handler(request(list.body, { ...list.headers, origin: 'https://evil.example' }))).status,
    ).toBe(403);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(512).fill(0x20));
        controller.close();
      },
    });
    const big = new Request(URL_BASE, {
      method: 'POST',
      headers: list.headers,
      body,
      duplex: 'half',
    } as RequestInit);
    expect((await handler(big)).status).toBe(413);
    expect((await handler(request(list.body, { ...list.headers, 'content-type': 'text/html' }))).status).toBe(
      415,
    );
    const broken = await handler(request('{', list.headers));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('cancels the handler when the consumer cancels the SSE body', async () => {
    const server = new TestServer();
    handler = createFetchHandler(server, { keepAliveMs: 0 });
    const wait = modern('tools/call', { name: 'wait_for_cancel', arguments: {} });
    const response = await handler(request(wait.body, wait.headers));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await expect.poll(() => server.cancelled, { timeout: 2000 }).toEqual(['wait_for_cancel']);
  });

  it('runs handshake-era sessions: initialize, session header, DELETE', async () => {
    handler = createFetchHandler(new TestServer());
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'f', version: '1' } },
    };
    const response = await handler(request(init, jsonHeaders()));
    const sessionId = response.headers.get('mcp-session-id') as string;
    expect(sessionId).toBeTruthy();
    expect(await response.json()).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
    const headers = jsonHeaders({ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
    const list = await handler(request({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers));
    expect(await list.json()).toMatchObject({ id: 2, result: {} });
    const del = await handler(new Request(URL_BASE, { method: 'DELETE', headers }));
    expect(del.status).toBe(200);
    const gone = await handler(request({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers));
    expect(gone.status).toBe(404);
  });
});
