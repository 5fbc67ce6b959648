/**
 * Hostile bodies over real sockets (2026-07-28 / 2025-11-25 basic/transports: Security): a body that never
 * finishes, invalid UTF-8, pathological nesting, the default size cap. Each is refused with a clear answer, never
 * reaches a handler, and the server keeps serving.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FetchHandler, createFetchHandler } from '../../src/server/http.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/transports/http/server/index.js';
import { expectValid } from '../support/schema.js';
import { TestServer } from './http/dispatcher.js';
import { type Harness, modern, post, raw, start } from './http/helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await start({ bodyTimeoutMs: 300 });
});
afterEach(async () => {
  await h.http.close();
});

/** The HTTP layer's own error bodies are JSON-RPC error responses by the 2026-07-28 schema. */
function errorBody(text: string): { error: { code: number; message: string } } {
  const body = JSON.parse(text);
  expectValid('2026-07-28', 'JSONRPCErrorResponse', body);
  return body;
}

async function stillServes(): Promise<void> {
  const { body, headers } = modern('tools/list');
  const response = await post(h.url, body, headers);
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ result: { tools: expect.any(Array) } });
}

/**
 * Writes a request head and part of a body on a raw socket, then goes silent. Resolves with everything the
 * server sent and whether it closed the connection, once it does (or after `waitMs`).
 */
function stall(
  head: string,
  partialBody: string,
  waitMs: number,
): Promise<{ text: string; closed: boolean }> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.write(head + partialBody);
  });
}

function headFor(path: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

describe('a body that never finishes (slowloris)', () => {
  const list = modern('tools/list');
  const text = JSON.stringify(list.body);

  it('a Content-Length that promises more than arrives: 408 after the body timeout, connection closed', async () => {
    const started = Date.now();
    const head = headFor(new URL(h.url).pathname, { ...list.headers, 'content-length': String(text.length) });
    const outcome = await stall(head, text.slice(0, 10), 5000);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(errorBody(outcome.text.slice(outcome.text.indexOf('\r\n\r\n') + 4)).error.code).toBe(-32600);
    expect(outcome.closed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('a chunked body whose last chunk never comes: same answer', async () => {
    const head = headFor(new URL(h.url).pathname, { ...list.headers, 'transfer-encoding': 'chunked' });
    const chunk = `${text.length.toString(16)}\r\n${text}\r\n`;
    const outcome = await stall(head, chunk, 5000);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(outcome.closed).toBe(true);
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('the fetch form times a stalled stream out too', async () => {
    const fetchHandler: FetchHandler = createFetchHandler(new TestServer(), { bodyTimeoutMs: 200 });
    try {
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text.slice(0, 10)));
        },
        cancel() {
          cancelled = true;
        },
      });
      const request = new Request('http://localhost/mcp', {
        method: 'POST',
        headers: list.headers,
        body,
        duplex: 'half',
      } as RequestInit);
      const response = await fetchHandler(request);
      expect(response.status).toBe(408);
      expect(cancelled).toBe(true);
    } finally {
      await fetchHandler.close();
    }
  });
});

describe('bytes that are not UTF-8', () => {
  const list = modern('tools/list');
  const prefix = JSON.stringify(list.body).slice(0, -2);
  // A stray continuation byte, an overlong "/", and a UTF-8-encoded lone surrogate: none is UTF-8.
  const bad = [Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80])];

  it('are a parse error (400, -32700), not text patched with U+FFFD, on node:http', async () => {
    for (const bytes of bad) {
      const body = Buffer.concat([Buffer.from(`${prefix},"x":"`), bytes, Buffer.from('"}}')]);
      const response = await raw(h.url, { headers: list.headers, chunks: [body] });
      expect(response.status, bytes.toString('hex')).toBe(400);
      expect(errorBody(response.body).error.code).toBe(-32700);
    }
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('are a parse error on the fetch form too', async () => {
    const fetchHandler = createFetchHandler(new TestServer());
    try {
      for (const bytes of bad) {
        const body = Buffer.concat([Buffer.from(`${prefix},"x":"`), bytes, Buffer.from('"}}')]);
        const response = await fetchHandler(
          new Request('http://localhost/mcp', { method: 'POST', headers: list.headers, body }),
        );
        expect(response.status).toBe(400);
        expect(errorBody(await response.text()).error.code).toBe(-32700);
      }
    } finally {
      await fetchHandler.close();
    }
  });
});

describe('pathological JSON', () => {
  it('refuses 100 000 levels of nesting with 400 and keeps serving', async () => {
    const { headers } = modern('tools/list');
    for (const open of ['[', '{"a":']) {
      const close = open === '[' ? ']' : '}';
      const depth = 100_000;
      const text = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${open.repeat(depth)}1${close.repeat(depth)}}}`;
      const response = await post(h.url, text, headers);
      expect(response.status).toBe(400);
      expect(errorBody(await response.text()).error.code).toBe(-32600);
    }
    expect(h.server.calls).toHaveLength(0);
    await stillServes();
  });

  it('caps bodies at 4 MiB by default', async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(4 * 1024 * 1024);
    const { body, headers } = modern('tools/list', { pad: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) });
    const response = await raw(h.url, { headers, chunks: [JSON.stringify(body)] }).catch(
      (error: Error) => error,
    );
    if (response instanceof Error) throw response;
    expect(response.status).toBe(413);
    const under = modern('tools/list', { pad: 'x'.repeat(DEFAULT_MAX_BODY_BYTES - 4096) });
    expect((await post(h.url, under.body, under.headers)).status).toBe(200);
  });
});
