import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, jsonHeaders, post, start, takeSse } from './http/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.http.close();
  h = undefined;
});

describe('2024-11-05 HTTP+SSE transport', () => {
  it('serves the official SDK SSEClientTransport end to end', async () => {
    h = await start();
    const client = new Client({ name: 'old-client', version: '1' });
    const transport = new SSEClientTransport(new URL('/sse', h.url));
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain('echo');
      const progress: number[] = [];
      const result = await client.callTool({ name: 'progress', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(progress).toEqual([1, 2, 3]);
      expect(h.server.sessions).toHaveLength(1);
    } finally {
      await client.close();
    }
    // The stream closing ends the session.
    await expect.poll(() => h?.server.sessions[0]?.closed, { timeout: 2000 }).toBe(true);
  });

  it('announces the message endpoint first, answers POSTs with 202 and responses on the stream', async () => {
    h = await start();
    const controller = new AbortController();
    const stream = await fetch(new URL('/sse', h.url), {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const endpoint = /event: endpoint\ndata: (\S+)/.exec(first)?.[1] as string;
    expect(endpoint).toMatch(/^\/messages\?sessionId=[\x21-\x7e]+$/);
    reader.releaseLock();
    const messages = new URL(endpoint, h.url).href;
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const accepted = await post(messages, init, jsonHeaders());
    expect(accepted.status).toBe(202);
    const [event] = await takeSse(stream, 1);
    expect(JSON.parse(event?.data ?? '{}')).toMatchObject({
      id: 1,
      result: { protocolVersion: '2024-11-05' },
    });
    controller.abort();
    await expect
      .poll(async () => (await post(messages, init, jsonHeaders())).status, { timeout: 2000 })
      .toBe(404);
  });

  it('refuses POSTs without or with an unknown sessionId, and bad bodies', async () => {
    h = await start();
    const messages = new URL('/messages', h.url);
    expect((await post(messages.href, {}, jsonHeaders())).status).toBe(400);
    expect((await post(`${messages.href}?sessionId=nope`, {}, jsonHeaders())).status).toBe(404);
    expect((await fetch(new URL('/sse', h.url), { method: 'POST' })).status).toBe(405);
  });

  it('counts HTTP+SSE sessions against the cap', async () => {
    h = await start({ maxSessions: 1 });
    const controller = new AbortController();
    const first = await fetch(new URL('/sse', h.url), {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(first.status).toBe(200);
    const second = await fetch(new URL('/sse', h.url), { headers: { accept: 'text/event-stream' } });
    expect(second.status).toBe(503);
    controller.abort();
  });

  it('can be switched off', async () => {
    h = await start({ legacySse: false });
    expect((await fetch(new URL('/sse', h.url), { headers: { accept: 'text/event-stream' } })).status).toBe(
      404,
    );
  });
});
