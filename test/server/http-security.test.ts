import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpAuthGuard } from '../../src/transports/http/server/index.js';
import { type Harness, jsonHeaders, modern, post, raw, start } from './http/helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await start({ maxBodyBytes: 64 * 1024 });
});
afterEach(async () => {
  await h.http.close();
});

async function stillServes(): Promise<void> {
  const { body, headers } = modern('tools/list');
  const response = await post(h.url, body, headers);
  expect(response.status).toBe(200);
  expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(
    0,
  );
}

describe('DNS rebinding: Host and Origin allow-lists', () => {
  const port = () => new URL(h.url).port;
  const list = modern('tools/list');

  it('refuses a foreign Host alone with 403, the handler never runs', async () => {
    const response = await raw(h.url, {
      headers: { ...list.headers, host: `evil.example.com:${port()}` },
      chunks: [JSON.stringify(list.body)],
    });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(JSON.parse(response.body).id).toBeUndefined();
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('refuses a foreign Origin alone (Host is fine) with 403', async () => {
    const response = await raw(h.url, {
      headers: { ...list.headers, host: `127.0.0.1:${port()}`, origin: 'http://evil.example.com' },
      chunks: [JSON.stringify(list.body)],
    });
    expect(response.status).toBe(403);
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('refuses the literal "null" Origin, an Origin with a path, and look-alike hosts', async () => {
    for (const origin of [
      'null',
      'http://localhost/evil',
      'http://localhost.evil.example',
      'http://127.0.0.1@evil.example',
      'http://localhost:80@evil.example',
      'file://localhost',
    ]) {
      const response = await raw(h.url, {
        headers: { ...list.headers, origin },
        chunks: [JSON.stringify(list.body)],
      });
      expect(response.status).toBe(403);
    }
  });

  it('refuses a Host whose port is not a port, or whose name only starts like localhost', async () => {
    for (const host of [
      `localhost:${port()}@evil.example`,
      `localhost.evil.example:${port()}`,
      'localhost:x',
    ]) {
      const response = await raw(h.url, {
        headers: { ...list.headers, host },
        chunks: [JSON.stringify(list.body)],
      });
      expect(response.status, host).toBe(403);
    }
    expect(h.server.calls).toHaveLength(0);
  });

  it('accepts localhost, 127.0.0.1 and [::1] with any port, in Host and Origin', async () => {
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      const response = await raw(h.url, {
        headers: { ...list.headers, host: `${name}:${port()}`, origin: `http://${name}:5173` },
        chunks: [JSON.stringify(list.body)],
      });
      expect(response.status, name).toBe(200);
    }
  });

  it('also guards the legacy HTTP+SSE endpoint', async () => {
    const response = await raw(new URL('/sse', h.url).href, {
      method: 'GET',
      headers: { accept: 'text/event-stream', host: 'evil.example.com' },
    });
    expect(response.status).toBe(403);
  });

  it('binds 127.0.0.1 by default; bound to another address, that address is an allowed Host', async () => {
    expect((h.http.httpServer.address() as { address: string }).address).toBe('127.0.0.1');
    await h.http.close();
    h = await start({ host: '127.0.0.2' });
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.2:/);
    const response = await post(h.url, list.body, list.headers);
    expect(response.status).toBe(200);
  });

  it('takes a configured allow-list (exact origin, host with port)', async () => {
    await h.http.close();
    h = await start({ allowedHosts: ['mcp.internal:8443'], allowedOrigins: ['https://app.example.com'] });
    const ok = await raw(h.url, {
      headers: { ...list.headers, host: 'mcp.internal:8443', origin: 'https://app.example.com' },
      chunks: [JSON.stringify(list.body)],
    });
    expect(ok.status).toBe(200);
    const wrongPort = await raw(h.url, {
      headers: { ...list.headers, host: 'mcp.internal:9000' },
      chunks: [JSON.stringify(list.body)],
    });
    expect(wrongPort.status).toBe(403);
  });
});

describe('body size cap (413 before parsing)', () => {
  const big = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(70 * 1024)}"}}`;

  it('refuses a declared Content-Length past the cap without reading the body', async () => {
    const response = await raw(h.url, {
      headers: { ...jsonHeaders(), 'content-length': String(10 * 1024 * 1024) },
      chunks: ['{'],
    }).catch((error: Error) => error);
    if (response instanceof Error) throw response;
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    await stillServes();
  });

  it('refuses a chunked body past the cap while it streams', async () => {
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(8 * 1024, 0x20));
    const response = await raw(h.url, {
      headers: jsonHeaders(),
      chunks: ['{"pad":"', ...chunks, '"}'],
    }).catch((error: Error) => error);
    if (response instanceof Error) throw response;
    expect(response.status).toBe(413);
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('reads no more than a (lying, small) Content-Length: the rest is never buffered as body', async () => {
    // The HTTP parser stops at Content-Length; the truncated JSON is a parse error, the overflow never reaches
    // the body buffer, and the server keeps serving.
    const response = await raw(h.url, {
      headers: { ...jsonHeaders(), 'content-length': '20' },
      chunks: [big],
    });
    // Either our -32700 answer or node's own 400 for the garbage that follows on the socket, whichever is first.
    expect(response.status).toBe(400);
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('refuses a single chunk past the cap', async () => {
    const response = await raw(h.url, { headers: jsonHeaders(), chunks: [big] });
    expect(response.status).toBe(413);
    await stillServes();
  });

  it('accepts a body just under the cap', async () => {
    const { body, headers } = modern('tools/list', { pad: 'y'.repeat(60 * 1024) });
    const response = await post(h.url, body, headers);
    expect(response.status).toBe(200);
  });
});

describe('malformed input', () => {
  it('415 for a wrong Content-Type', async () => {
    const { body, headers } = modern('tools/list');
    const response = await post(h.url, body, { ...headers, 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('400 with -32700 for unparseable JSON', async () => {
    const { headers } = modern('tools/list');
    const response = await post(h.url, '{"jsonrpc":"2.0",', headers);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
    await stillServes();
  });

  it('400 with -32600 for a batch outside a 2025-03-26 session', async () => {
    const { body, headers } = modern('tools/list');
    const response = await post(h.url, [body, { ...body, id: 2 }], headers);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('400 with -32600 for a response object sent as a request', async () => {
    const { headers } = modern('tools/list');
    const response = await post(h.url, { jsonrpc: '2.0', id: 1, result: {} }, headers);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('400 with -32600 for a non-object, a wrong jsonrpc and a null id', async () => {
    const { headers } = modern('tools/list');
    for (const value of [
      '42',
      '"x"',
      'null',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":null,"method":"x"}',
    ]) {
      const response = await post(h.url, value, headers);
      expect(response.status, value).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    }
    await stillServes();
  });

  it('refuses duplicate keys, even spelled with escapes or in another case, before dispatch', async () => {
    const { headers } = modern('tools/call', { name: 'echo' });
    const m = JSON.stringify({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const bodies = [
      // JSON.parse keeps the last "name"; a first-wins gateway would see "echo".
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"route","arguments":{},"_meta":${m}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list","params":{"name":"echo","_meta":${m}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","\\u006eame":"route","_meta":${m}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","NAME":"route","_meta":${m}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"a":2},"_meta":${m}}}`,
    ];
    for (const text of bodies) {
      const response = await post(h.url, text, headers);
      expect(response.status, text).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    }
    expect(h.server.calls).toHaveLength(0);
    // Keys that merely look alike inside strings, or repeat in different objects, are fine.
    const fine = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\\"name\\":\\"x\\"","nested":{"text":1}},"_meta":${m}}}`;
    expect((await post(h.url, fine, headers)).status).toBe(200);
  });

  it('refuses nesting deeper than 256 levels', async () => {
    const { headers } = modern('tools/list');
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${'['.repeat(300)}${']'.repeat(300)}}}`;
    const response = await post(h.url, deep, headers);
    expect(response.status).toBe(400);
  });

  it('405 for other HTTP methods, 404 for other paths', async () => {
    expect((await fetch(h.url, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(new URL('/other', h.url), { method: 'POST' })).status).toBe(404);
  });
});

describe('an auth guard that answers at once', () => {
  it('is taken as it is, as an awaited promise would be: admitted, or refused with its response', async () => {
    await h.http.close();
    let admit = true;
    // A guard written without async: its outcome is a plain object, not a promise.
    const auth = {
      authenticate: () =>
        admit
          ? { ok: true, authInfo: { sub: 'alice' }, principal: 'alice' }
          : { ok: false, response: { status: 401, headers: { 'www-authenticate': 'Bearer' } } },
      authorize: () => undefined,
    } as unknown as HttpAuthGuard;
    h = await start({ maxBodyBytes: 64 * 1024, auth });
    await stillServes();
    admit = false;
    const { body, headers } = modern('tools/list');
    const refused = await post(h.url, body, headers);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });
});
