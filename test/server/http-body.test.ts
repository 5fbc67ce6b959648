/**
 * How the node:http edge reads a request body, over a raw socket: a body that came whole with its headers is
 * taken at once (no body timer armed), a body that arrives later is waited for under the timer, a chunked body
 * past the cap that came whole is still refused, and the keep-alive connection serves the next request either way.
 */
import { type Socket, connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Harness, modern, start } from './http/helpers.js';

/** A distinctive body timeout, so the spy can tell the body timer from every other timer. */
const BODY_TIMEOUT_MS = 4321;

let h: Harness;
let socket: Socket | undefined;
beforeEach(async () => {
  h = await start({ bodyTimeoutMs: BODY_TIMEOUT_MS, maxBodyBytes: 2048 });
});
afterEach(async () => {
  vi.restoreAllMocks();
  socket?.destroy();
  socket = undefined;
  await h.http.close();
});

interface Answer {
  status: number;
  head: string;
  body: string;
}

/** One keep-alive connection: writes bytes as given, reads answers framed by their Content-Length. */
async function connection(): Promise<{
  write(text: string): void;
  next(): Promise<Answer>;
  closed: Promise<void>;
}> {
  const url = new URL(h.url);
  const s = connect(Number(url.port), url.hostname);
  socket = s;
  await new Promise<void>((resolve, reject) => {
    s.once('connect', resolve);
    s.once('error', reject);
  });
  let buffered = '';
  let waiting: (() => void) | undefined;
  s.setEncoding('utf8');
  s.on('data', (chunk: string) => {
    buffered += chunk;
    waiting?.();
  });
  const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
  const take = (): Answer | undefined => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const head = buffered.slice(0, end);
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < end + 4 + length) return undefined;
    const body = buffered.slice(end + 4, end + 4 + length);
    buffered = buffered.slice(end + 4 + length);
    return { status: Number(head.slice(9, 12)), head, body };
  };
  return {
    write: (text) => s.write(text),
    next: () =>
      new Promise((resolve, reject) => {
        const check = () => {
          const answer = take();
          if (answer) {
            waiting = undefined;
            resolve(answer);
          }
        };
        waiting = check;
        s.once('close', () => reject(new Error(`closed before an answer; buffered ${buffered}`)));
        check();
      }),
    closed,
  };
}

function head(headers: Record<string, string>, framing: string): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join('')}${framing}\r\n\r\n`;
}

function bodyTimers(spy: { mock: { calls: unknown[][] } }): number {
  return spy.mock.calls.filter((call) => call[1] === BODY_TIMEOUT_MS).length;
}

describe('a request body on node:http', () => {
  it('that came whole with its headers is taken at once, and the connection serves the next request', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const peer = await connection();
    for (const id of [1, 2]) {
      const { body, headers } = modern('tools/list', {}, id);
      const text = JSON.stringify(body);
      peer.write(head(headers, `content-length: ${Buffer.byteLength(text)}`) + text);
      const answer = await peer.next();
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ id, result: { tools: expect.any(Array) } });
    }
    expect(bodyTimers(spy)).toBe(0);
  });

  it('that arrives after its headers is waited for (under the body timer)', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const peer = await connection();
    const { body, headers } = modern('tools/list', {}, 7);
    const text = JSON.stringify(body);
    peer.write(head(headers, `content-length: ${Buffer.byteLength(text)}`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    peer.write(text.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    peer.write(text.slice(20));
    const answer = await peer.next();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: 7, result: { tools: expect.any(Array) } });
    expect(bodyTimers(spy)).toBe(1);
  });

  it('that is chunked, past the cap and came whole is refused with 413, and the connection closed', async () => {
    const peer = await connection();
    const { body, headers } = modern('tools/list', { pad: 'x'.repeat(4096) });
    const text = JSON.stringify(body);
    peer.write(
      `${head(headers, 'transfer-encoding: chunked')}${text.length.toString(16)}\r\n${text}\r\n0\r\n\r\n`,
    );
    const answer = await peer.next();
    expect(answer.status).toBe(413);
    expect(answer.head.toLowerCase()).toContain('connection: close');
    await peer.closed;
    expect(h.server.calls).toHaveLength(0);
  });

  it('that is chunked and under the cap is served, whole or not', async () => {
    const peer = await connection();
    const { body, headers } = modern('tools/list', {}, 3);
    const text = JSON.stringify(body);
    peer.write(
      `${head(headers, 'transfer-encoding: chunked')}${text.length.toString(16)}\r\n${text}\r\n0\r\n\r\n`,
    );
    expect((await peer.next()).status).toBe(200);
    peer.write(`${head(headers, 'transfer-encoding: chunked')}5\r\n${text.slice(0, 5)}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const rest = text.slice(5);
    peer.write(`${rest.length.toString(16)}\r\n${rest}\r\n0\r\n\r\n`);
    expect((await peer.next()).status).toBe(200);
  });
});
