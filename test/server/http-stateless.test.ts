import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeHeaderValue } from '../../src/transports/http/header-values.js';
import { type Harness, MODERN, meta, modern, post, readSse, start, takeSse } from './http/helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await start();
});
afterEach(async () => {
  await h.http.close();
});

async function errorOf(response: Response): Promise<{ code: number; message: string; data?: unknown }> {
  return ((await response.json()) as { error: { code: number; message: string } }).error;
}

describe('2026-07-28 request metadata validation (400 / -32020, handler never runs)', () => {
  const call = (args: Record<string, unknown>) => modern('tools/call', { name: 'route', arguments: args });

  it('accepts matching headers and answers with plain JSON', async () => {
    const { body, headers } = modern('tools/list');
    const response = await post(h.url, body, headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { tools: expect.any(Array) },
    });
  });

  it('rejects a missing or different Mcp-Method, and values differing only in case', async () => {
    const { body, headers } = modern('tools/list');
    const { 'mcp-method': _, ...without } = headers;
    for (const variant of [
      without,
      { ...headers, 'mcp-method': 'prompts/list' },
      { ...headers, 'mcp-method': 'TOOLS/LIST' },
    ]) {
      const response = await post(h.url, body, variant);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: -32020 });
    }
    expect(h.server.calls).toHaveLength(0);
  });

  it('rejects a missing MCP-Protocol-Version (-32020) and one that differs from _meta (-32020)', async () => {
    const { body, headers } = modern('tools/list');
    const { 'mcp-protocol-version': _, ...without } = headers;
    // The body's _meta makes it a 2026-07-28 request, which must carry the header.
    const missing = await post(h.url, body, without);
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toMatchObject({ code: -32020 });
    const differs = await post(
      h.url,
      { ...body, params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': 'v999' }) } },
      headers,
    );
    expect(differs.status).toBe(400);
    expect(await errorOf(differs)).toMatchObject({ code: -32020 });
    expect(h.server.calls).toHaveLength(0);
  });

  it('missing _meta fields are -32602 / 400; an unsupported version is -32022 / 400 with the supported list', async () => {
    const { headers } = modern('tools/list');
    const noMeta = await post(h.url, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }, headers);
    expect(noMeta.status).toBe(400);
    expect(await noMeta.json()).toMatchObject({ id: 7, error: { code: -32602 } });
    const noCaps = await post(
      h.url,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
      },
      headers,
    );
    expect(noCaps.status).toBe(400);
    expect(await errorOf(noCaps)).toMatchObject({ code: -32602 });
    const old = { 'io.modelcontextprotocol/protocolVersion': 'v999' };
    const unsupported = await post(
      h.url,
      { jsonrpc: '2.0', id: 9, method: 'server/discover', params: { _meta: meta(old) } },
      { ...headers, 'mcp-method': 'server/discover', 'mcp-protocol-version': 'v999' },
    );
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({
      id: 9,
      error: { code: -32022, data: { requested: 'v999', supported: ['2026-07-28'] } },
    });
    expect(h.server.calls).toHaveLength(0);
  });

  it('checks Mcp-Name against params.name, decoding the Base64 form', async () => {
    const { body, headers } = modern('tools/call', { name: 'echo', arguments: {} });
    expect((await post(h.url, body, { ...headers, 'mcp-name': 'route' })).status).toBe(400);
    const { 'mcp-name': _, ...without } = headers;
    expect((await post(h.url, body, without)).status).toBe(400);
    expect((await post(h.url, body, { ...headers, 'mcp-name': '=?base64?bad!?=' })).status).toBe(400);
    expect(h.server.calls).toHaveLength(0);
    const unicode = modern('tools/call', { name: 'échø', arguments: {} });
    const encoded = await post(h.url, unicode.body, {
      ...unicode.headers,
      'mcp-name': encodeHeaderValue('échø'),
    });
    expect(encoded.status).toBe(200);
    expect(await encoded.json()).toMatchObject({ error: { code: -32602 } });
  });

  it('validates Mcp-Param-* declared by x-mcp-header: strings, integers numerically, booleans, nested paths', async () => {
    const args = { region: 'us-west1', shard: 42, dryRun: false, nested: { tenant: 'acme' } };
    const { body, headers } = call(args);
    const good = {
      ...headers,
      'mcp-param-region': 'us-west1',
      'mcp-param-shard': '42.0',
      'mcp-param-dryrun': 'false',
      'mcp-param-tenant': '=?base64?YWNtZQ==?=',
    };
    const ok = await post(h.url, body, good);
    expect(ok.status).toBe(200);
    expect(h.server.calls).toHaveLength(1);
    const bad: Array<Record<string, string>> = [
      { ...good, 'mcp-param-region': 'eu-west1' },
      { ...good, 'mcp-param-shard': '43' },
      { ...good, 'mcp-param-shard': '0x2a' },
      { ...good, 'mcp-param-dryrun': 'False' },
      { ...good, 'mcp-param-tenant': '=?base64?SGVsbG8?=' },
    ];
    const { 'mcp-param-region': _, ...missingRegion } = good;
    bad.push(missingRegion);
    for (const variant of bad) {
      const response = await post(h.url, body, variant);
      expect(response.status, JSON.stringify(variant)).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: -32020 });
    }
    expect(h.server.calls).toHaveLength(1);
  });

  it('does not expect a Mcp-Param header for an absent or null value, and ignores undeclared ones', async () => {
    const { body, headers } = call({ region: null });
    const response = await post(h.url, body, { ...headers, 'mcp-param-unknown': 'whatever' });
    expect(response.status).toBe(200);
    const sentAnyway = await post(h.url, call({}).body, { ...headers, 'mcp-param-region': 'us' });
    expect(sentAnyway.status).toBe(400);
  });

  it('answers an unknown method with 404 and -32601 (the id preserved), in-band errors with 200', async () => {
    const { body, headers } = modern('unknown/method', {}, 'abc');
    const response = await post(h.url, body, headers);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ id: 'abc', error: { code: -32601 } });
    const tool = modern('tools/call', { name: 'nope', arguments: {} });
    expect((await post(h.url, tool.body, tool.headers)).status).toBe(200);
  });

  it('GET and DELETE without a session are 405 for modern clients; notifications are 202', async () => {
    expect((await fetch(h.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(h.url, { method: 'DELETE' })).status).toBe(405);
    const { headers } = modern('notifications/whatever');
    expect((await post(h.url, { jsonrpc: '2.0', method: 'notifications/whatever' }, headers)).status).toBe(
      202,
    );
  });

  it('passes the request headers to the handler in extra', async () => {
    const { body, headers } = modern('tools/list');
    await post(h.url, body, { ...headers, authorization: 'Bearer t' });
    expect(h.server.extras.at(-1)?.headers?.get('authorization')).toBe('Bearer t');
  });
});

describe('JSON or a per-request SSE stream', () => {
  it('streams progress first and the result last when the handler reports progress', async () => {
    const { body, headers } = modern('tools/call', {
      name: 'progress',
      arguments: {},
      _meta: { progressToken: 't' },
    });
    const response = await post(h.url, body, headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const { events } = await readSse(response);
    const messages = events.map((event) => JSON.parse(event.data));
    expect(messages.map((m) => m.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);
    expect(messages[0].params).toMatchObject({ progressToken: 't', progress: 1 });
    expect(messages[3]).toMatchObject({ id: 1, result: { content: [{ text: 'done' }] } });
    // 2026-07-28 streams are not resumable: no event ids.
    expect(events.every((event) => event.id === undefined)).toBe(true);
  });

  it('drops notifications for a client that accepts only JSON, and still answers', async () => {
    const { body, headers } = modern('tools/call', { name: 'progress', arguments: {} });
    const response = await post(h.url, body, { ...headers, accept: 'application/json' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ result: { content: [{ text: 'done' }] } });
  });

  it('answers a client that accepts only text/event-stream with a one-event stream', async () => {
    const { body, headers } = modern('tools/list');
    const response = await post(h.url, body, { ...headers, accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const { events } = await readSse(response);
    expect(events.map((event) => JSON.parse(event.data))).toMatchObject([
      { id: 1, result: { tools: expect.any(Array) } },
    ]);
  });

  it('406 for a client that accepts neither JSON nor SSE', async () => {
    const { body, headers } = modern('tools/list');
    expect((await post(h.url, body, { ...headers, accept: 'text/html' })).status).toBe(406);
  });

  it('closing the SSE stream cancels the handler (its signal aborts)', async () => {
    const controller = new AbortController();
    const { body, headers } = modern('tools/call', { name: 'wait_for_cancel', arguments: {} });
    const response = await post(h.url, body, headers, controller.signal);
    const [first] = await takeSse(response, 1);
    expect(JSON.parse(first?.data ?? '{}')).toMatchObject({ method: 'notifications/progress' });
    controller.abort();
    await expect.poll(() => h.server.cancelled, { timeout: 2000 }).toEqual(['wait_for_cancel']);
    // And the server keeps serving.
    const next = modern('tools/list');
    expect((await post(h.url, next.body, next.headers)).status).toBe(200);
  });

  it('serves many concurrent requests on keep-alive connections', async () => {
    const responses = await Promise.all(
      Array.from({ length: 64 }, (_, i) => {
        const { body, headers } = modern('tools/call', { name: 'echo', arguments: { text: `n${i}` } }, i);
        return post(h.url, body, headers).then(
          (r) => r.json() as Promise<{ id: number; result: { content: Array<{ text: string }> } }>,
        );
      }),
    );
    for (const [i, response] of responses.entries()) {
      expect(response.id).toBe(i);
      expect(JSON.parse(response.result.content[0]?.text ?? '{}')).toEqual({ text: `n${i}` });
    }
  });
});
