/**
 * Requests handed to a transport that posts (Transport.post: no promise per message) and to one that only
 * sends: either way a request whose write fails ends with `transport_error` naming its method, never waits for
 * its timeout, and fails after `request` has returned.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, type LocalError } from '../../src/jsonrpc/index.js';
import type { JSONRPCMessage, RequestId, Transport } from '../../src/jsonrpc/index.js';
import { mcpHooks } from '../../src/mcp/index.js';
import { LineWriter } from '../../src/transports/stdio/framing.js';
import { StdioClientTransport, StdioServerTransport } from '../../src/transports/stdio/index.js';

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

/** The stdio transport with its `post` hidden: the connection can only send. */
function sendOnly(inner: Transport): Transport {
  const transport: Transport = {
    start: () => inner.start(),
    send: (message) => inner.send(message),
    close: () => inner.close(),
  };
  inner.onmessage = (message, extra) => transport.onmessage?.(message, extra);
  inner.onclose = (reason) => transport.onclose?.(reason);
  inner.onerror = (error) => transport.onerror?.(error);
  return transport;
}

async function failedRequests(connection: Connection, destroy: () => void) {
  open.push(connection);
  await connection.start();
  // Sent in one tick: one write for all three, which fails as the stream is gone before it happens.
  const sent = ['ping', 'tools/list', 'prompts/list'].map((method) =>
    connection.request(method).then(
      () => undefined,
      (error: unknown) => error as LocalError,
    ),
  );
  destroy();
  const errors = await Promise.all(sent);
  expect(errors.map((error) => error?.code)).toEqual([
    'transport_error',
    'transport_error',
    'transport_error',
  ]);
  expect(errors.map((error) => error?.message)).toEqual([
    'failed to send ping',
    'failed to send tools/list',
    'failed to send prompts/list',
  ]);
  expect(errors.every((error) => (error?.cause as LocalError).code === 'connection_closed')).toBe(true);
  expect(connection.stats.pending).toBe(0);
}

describe('Connection: requests whose write fails', () => {
  it('a transport that only sends: each request of the failed batch fails', async () => {
    const stdout = new PassThrough();
    const transport = sendOnly(new StdioServerTransport({ stdin: new PassThrough(), stdout }));
    await failedRequests(new Connection(transport, { hooks: mcpHooks }), () => stdout.destroy());
  });

  it('a transport that posts: requests are posted, never sent, and a failed batch fails each of them', async () => {
    const stdout = new PassThrough();
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    transport.send = () => Promise.reject(new Error('a request must be posted'));
    await failedRequests(new Connection(transport, { hooks: mcpHooks }), () => stdout.destroy());
  });

  it('a transport that posts reports a request it cannot take at all; the request fails after it returned', async () => {
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout: new PassThrough() });
    const connection = new Connection(transport, { hooks: mcpHooks });
    open.push(connection);
    await connection.start();
    // Closed under the connection without its knowing (it learns of closes through onclose, detached here).
    transport.onclose = undefined;
    await transport.close();
    const seen: unknown[] = [];
    const request = connection.request('ping', undefined, {
      onfailure: (error) => {
        seen.push(error);
        throw error;
      },
    });
    const failedWithin = [...seen];
    const error = (await request.catch((e: unknown) => e)) as LocalError;
    expect(failedWithin).toEqual([]);
    expect(error.code).toBe('transport_error');
    expect(error.message).toBe('failed to send ping');
    expect((error.cause as LocalError).code).toBe('connection_closed');
    expect(connection.stats.pending).toBe(0);
  });

  it('a request posted while another is being posted: both fail after their request returned', async () => {
    let nested: (() => void) | undefined;
    const transport: Transport = {
      start: async () => {},
      send: () => Promise.reject(new Error('a request must be posted')),
      close: async () => {},
      post(message) {
        const run = nested;
        nested = undefined;
        run?.();
        transport.onpostfailed?.(new Error('gone'), [(message as { id: RequestId }).id]);
        return undefined;
      },
    };
    const connection = new Connection(transport);
    open.push(connection);
    await connection.start();
    const seen: string[] = [];
    const failing = (name: string) => ({
      onfailure: (error: unknown) => {
        seen.push(name);
        throw error;
      },
    });
    let inner: Promise<unknown> | undefined;
    nested = () => {
      inner = connection.request('inner', undefined, failing('inner'));
    };
    const outer = connection.request('outer', undefined, failing('outer'));
    expect(seen).toEqual([]);
    await expect(outer).rejects.toMatchObject({ code: 'transport_error', message: 'failed to send outer' });
    await expect(inner).rejects.toMatchObject({ code: 'transport_error', message: 'failed to send inner' });
    expect(connection.stats.pending).toBe(0);
  });

  it('a client transport whose server is not running fails a posted request the same way', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', ''] });
    const connection = new Connection(transport, { hooks: mcpHooks });
    // Never started: there is no process to write to.
    const error = (await connection.request('ping').catch((e: unknown) => e)) as LocalError;
    expect(error.code).toBe('transport_error');
    expect((error.cause as LocalError).code).toBe('not_connected');
    expect(connection.stats.pending).toBe(0);
  });

  it('a malformed message throws from post and nothing is queued', async () => {
    const stdout = new PassThrough();
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    const connection = new Connection(transport, { hooks: mcpHooks });
    open.push(connection);
    await connection.start();
    const error = (await connection.request('ping', { n: 1n }).catch((e: unknown) => e)) as LocalError;
    expect(error.code).toBe('transport_error');
    expect(stdout.read()).toBeNull();
  });
});

describe('stdio transports: posted requests without onpostfailed', () => {
  it('a failed write of requests and other messages goes to onerror, once per batch', async () => {
    const stdout = new PassThrough();
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    transport.post({ jsonrpc: '2.0', id: 1, method: 'ping' });
    transport.post({ jsonrpc: '2.0', method: 'notifications/progress' });
    stdout.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((error) => (error as LocalError).code)).toEqual(['connection_closed']);
    await transport.close();
    transport.post({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(errors).toHaveLength(2);
  });
});

describe('stdio LineWriter: posted requests', () => {
  it('a failed write reports the ids of the requests it held once, other posted messages to onerror', async () => {
    // Takes one chunk and never finishes it: the first line fits its buffer, the next ones fill it.
    const stream = new Writable({ highWaterMark: 64, write() {} });
    const failed: Array<{ error: Error; ids: readonly RequestId[] }> = [];
    const errors: Error[] = [];
    const writer = new LineWriter(
      stream,
      (error) => errors.push(error),
      (error, ids) => failed.push({ error, ids: [...ids] }),
    );
    const request = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });
    // A batch written at once: nothing reported, and the next batch starts with no ids of its own.
    writer.post(request(1), 1);
    writer.flush();
    // Queued behind the full buffer: the write waits for 'drain', which never comes.
    writer.post(request(2), 2);
    writer.post({ jsonrpc: '2.0', method: 'notifications/progress' });
    writer.post(request(3), 3);
    writer.flush();
    writer.post(request(4), 4);
    writer.flush();
    stream.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(failed.map((report) => report.ids)).toEqual([[2, 3], [4]]);
    expect(failed.every((report) => (report.error as LocalError).code === 'connection_closed')).toBe(true);
    expect(errors).toHaveLength(1);
  });
});
