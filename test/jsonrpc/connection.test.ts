import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, LocalError, RpcError } from '../../src/jsonrpc/index.js';
import type { FailedRequest, JSONRPCMessage, SentRequest } from '../../src/jsonrpc/index.js';
import { mcpHooks } from '../../src/mcp/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { StdioServerTransport } from '../../src/transports/stdio/index.js';
import { expectValid, messageDefName } from '../support/schema.js';

/** A raw peer: the test sees every message the connection writes and can answer anything, valid or not. */
async function rawPeer(options: ConstructorParameters<typeof Connection>[1] = {}) {
  const [local, remote] = InMemoryTransport.createLinkedPair();
  const received: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  remote.onmessage = (message) => {
    received.push(message as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  };
  await remote.start();
  const connection = new Connection(local, { hooks: mcpHooks, ...options });
  await connection.start();
  const next = async (count = 1) => {
    while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return received[count - 1]!;
  };
  const send = (message: unknown) => remote.send(message as JSONRPCMessage);
  return { connection, received, next, send, remote };
}

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

describe('Connection: outgoing requests', () => {
  it('resolves with the result and never reuses a pending id', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const first = peer.connection.request('ping');
    const second = peer.connection.request('tools/list', { cursor: 'a' });
    const a = await peer.next(1);
    const b = await peer.next(2);
    expect(a.id).not.toEqual(b.id);
    expectValid('2025-11-25', 'JSONRPCRequest', a);
    expectValid('2026-07-28', 'JSONRPCRequest', b);
    await peer.send({ jsonrpc: '2.0', id: b.id, result: { tools: [] } });
    await peer.send({ jsonrpc: '2.0', id: a.id, result: {} });
    await expect(second).resolves.toEqual({ tools: [] });
    await expect(first).resolves.toEqual({});
    expect(peer.connection.stats).toEqual({ pending: 0, incoming: 0 });
  });

  it('rejects with a typed RpcError carrying code and data', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const call = peer.connection.request('resources/read', { uri: 'x://nope' });
    const sent = await peer.next();
    await peer.send({
      jsonrpc: '2.0',
      id: sent.id,
      error: { code: -32602, message: 'Resource not found', data: { uri: 'x://nope' } },
    });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32602, data: { uri: 'x://nope' } });
  });

  it('times out, sends notifications/cancelled, and drops the late response silently', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const call = peer.connection.request('slow', {}, { timeoutMs: 50 });
    const sent = await peer.next(1);
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect((error as LocalError).code).toBe('timeout');
    const cancel = await peer.next(2);
    expect(cancel).toMatchObject({ method: 'notifications/cancelled', params: { requestId: sent.id } });
    expectValid('2025-11-25', 'JSONRPCNotification', cancel);
    await peer.send({ jsonrpc: '2.0', id: sent.id, result: {} });
    // A later request still works: the late response did not resolve anything else.
    const ok = peer.connection.request('ping');
    const ping = await peer.next(3);
    await peer.send({ jsonrpc: '2.0', id: ping.id, result: { pong: true } });
    await expect(ok).resolves.toEqual({ pong: true });
  });

  it('progress resets the timeout but never past maxTotalTimeoutMs', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const reports: number[] = [];
    const started = Date.now();
    const call = peer.connection.request(
      'tools/call',
      { name: 'long' },
      { timeoutMs: 100, maxTotalTimeoutMs: 400, onprogress: (p) => reports.push(p.progress as number) },
    );
    const sent = await peer.next();
    const token = (sent.params as { _meta: { progressToken: number } })._meta.progressToken;
    expect(token).toBe(sent.id);
    const ticker = setInterval(() => {
      void peer.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: reports.length + 1 },
      });
    }, 40);
    try {
      const error = await call.catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect((error as LocalError).code).toBe('timeout');
      expect(reports.length).toBeGreaterThan(3); // progress kept it alive well past 100 ms
      expect(elapsed).toBeGreaterThanOrEqual(380);
      expect(elapsed).toBeLessThan(1000);
    } finally {
      clearInterval(ticker);
    }
  });

  it('progress moves only its own request deadline, and a request sent later keeps its own start', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    // One options object: the two first requests are sent in the same ms with the same options.
    const options = { timeoutMs: 200, onprogress: () => {} };
    const started = Date.now();
    const kept = peer.connection.request('tools/call', { name: 'kept' }, options);
    const plain = peer.connection.request('tools/call', { name: 'plain' }, options);
    const first = await peer.next(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = peer.connection.request('tools/call', { name: 'later' }, options);
    const ticker = setInterval(() => {
      void peer.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: first.id, progress: 1 },
      });
    }, 30);
    try {
      const elapsed = async (call: Promise<unknown>) => {
        const error = await call.catch((e: unknown) => e);
        expect((error as LocalError).code).toBe('timeout');
        return Date.now() - started;
      };
      const [plainAt, laterAt] = await Promise.all([elapsed(plain), elapsed(later)]);
      expect(plainAt).toBeGreaterThanOrEqual(195);
      // Not moved by the progress of the request sent beside it; the later one's 200 ms end 100 ms later.
      expect(laterAt).toBeGreaterThanOrEqual(295);
      expect(plainAt).toBeLessThan(laterAt - 50);
      clearInterval(ticker);
      // The request progress kept alive times out 200 ms after the last report.
      expect(await elapsed(kept)).toBeGreaterThanOrEqual(laterAt);
    } finally {
      clearInterval(ticker);
    }
  });

  it('an AbortSignal cancels: rejects at once and tells the peer', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const controller = new AbortController();
    const call = peer.connection.request('tools/call', { name: 'x' }, { signal: controller.signal });
    const sent = await peer.next(1);
    controller.abort('user pressed stop');
    const error = await call.catch((e: unknown) => e);
    expect((error as LocalError).code).toBe('cancelled');
    expect(await peer.next(2)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: sent.id, reason: 'user pressed stop' },
    });
    expect(peer.connection.stats.pending).toBe(0);
  });

  it('one signal cancels every request that carries it; close removes its listener', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const { EventEmitter } = await import('node:events');
    const shared = new AbortController();
    const other = new AbortController();
    const calls = [1, 2].map((n) => peer.connection.request('a', { n }, { signal: shared.signal }));
    const untouched = peer.connection.request('b', {}, { signal: other.signal });
    await peer.next(3);
    shared.abort('stop');
    for (const call of calls)
      expect(((await call.catch((e: unknown) => e)) as LocalError).code).toBe('cancelled');
    expect(peer.connection.stats.pending).toBe(1);
    expect(EventEmitter.getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    expect(EventEmitter.getEventListeners(other.signal, 'abort')).toHaveLength(1);
    await peer.connection.close();
    expect(((await untouched.catch((e: unknown) => e)) as LocalError).code).toBe('connection_closed');
    expect(EventEmitter.getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  it('rejects every pending request at once when the transport closes', async () => {
    const peer = await rawPeer();
    const calls = [peer.connection.request('a'), peer.connection.request('b'), peer.connection.request('c')];
    await peer.next(3);
    await peer.remote.close();
    for (const call of calls) {
      const error = await call.catch((e: unknown) => e);
      expect((error as LocalError).code).toBe('connection_closed');
    }
    await expect(peer.connection.request('d')).rejects.toMatchObject({ code: 'connection_closed' });
    expect(peer.connection.stats).toEqual({ pending: 0, incoming: 0 });
  });
});

describe('Connection: incoming messages', () => {
  it('answers unknown methods with -32601 and keeps serving', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    peer.connection.setRequestHandler('echo', (params) => ({ echoed: params?.value }));
    await peer.send({ jsonrpc: '2.0', id: 7, method: 'nope' });
    const error = await peer.next(1);
    expect(error).toMatchObject({ id: 7, error: { code: -32601 } });
    expectValid('2025-11-25', messageDefName(error), error);
    await peer.send({ jsonrpc: '2.0', id: 8, method: 'echo', params: { value: 3 } });
    expect(await peer.next(2)).toEqual({ jsonrpc: '2.0', id: 8, result: { echoed: 3 } });
  });

  it('answers invalid requests with -32600 and never leaks stack traces', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    peer.connection.setRequestHandler('boom', () => {
      throw new Error('database password is hunter2');
    });
    await peer.send({ jsonrpc: '2.0', id: 1, method: 'x', params: [1, 2] });
    expect(await peer.next(1)).toMatchObject({ id: 1, error: { code: -32600 } });
    await peer.send({ jsonrpc: '2.0', id: 2, method: 'boom' });
    const failure = await peer.next(2);
    expect(failure).toMatchObject({ id: 2, error: { code: -32603 } });
    expect(JSON.stringify(failure)).not.toContain('at ');
    expect(Object.keys((failure as { error: object }).error)).toEqual(['code', 'message']);
  });

  it('answers a batch with one id-less -32600 (batches were removed in 2025-06-18)', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    await peer.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    const error = await peer.next(1);
    expect(error).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'message is not a JSON object' },
    });
    expectValid('2025-11-25', 'JSONRPCErrorResponse', error);
  });

  it('rejects a duplicate id while the first request is in flight', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    let release!: () => void;
    peer.connection.setRequestHandler(
      'wait',
      () => new Promise((resolve) => (release = () => resolve({ done: true }))),
    );
    await peer.send({ jsonrpc: '2.0', id: 'same', method: 'wait' });
    await peer.send({ jsonrpc: '2.0', id: 'same', method: 'wait' });
    expect(await peer.next(1)).toMatchObject({ id: 'same', error: { code: -32600 } });
    release();
    expect(await peer.next(2)).toEqual({ jsonrpc: '2.0', id: 'same', result: { done: true } });
  });

  it('the peer cancelling aborts the handler signal and no response is sent', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    let aborted = false;
    peer.connection.setRequestHandler('long', (_params, context) => {
      return new Promise((_resolve, reject) => {
        context.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('stopped'));
        });
      });
    });
    await peer.send({ jsonrpc: '2.0', id: 5, method: 'long' });
    await new Promise((r) => setTimeout(r, 10));
    await peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    await new Promise((r) => setTimeout(r, 20));
    expect(aborted).toBe(true);
    expect(peer.received).toHaveLength(0);
    expect(peer.connection.stats.incoming).toBe(0);
  });

  it('a response for an unknown id is dropped and the connection survives', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    await peer.send({ jsonrpc: '2.0', id: 999, result: {} });
    const call = peer.connection.request('ping');
    const sent = await peer.next();
    await peer.send({ jsonrpc: '2.0', id: sent.id, result: {} });
    await expect(call).resolves.toEqual({});
  });

  it('close aborts handlers in flight', async () => {
    const peer = await rawPeer();
    let signal: AbortSignal | undefined;
    peer.connection.setRequestHandler('hang', (_p, context) => {
      signal = context.signal;
      return new Promise(() => {});
    });
    await peer.send({ jsonrpc: '2.0', id: 1, method: 'hang' });
    await new Promise((r) => setTimeout(r, 10));
    await peer.connection.close();
    expect(signal?.aborted).toBe(true);
  });
});

describe('Connection: no leaks', () => {
  it('100,000 requests leave no pending entries, timers or listeners behind', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = new Connection(b, { hooks: mcpHooks });
    server.setRequestHandler('echo', (params) => ({ n: params?.n }));
    const client = new Connection(a, { hooks: mcpHooks });
    await server.start();
    await client.start();
    const controller = new AbortController();
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const { EventEmitter } = await import('node:events');
    const batch = 1000;
    for (let i = 0; i < 100_000; i += batch) {
      const calls: Array<Promise<unknown>> = [];
      for (let j = 0; j < batch; j++)
        calls.push(client.request('echo', { n: i + j }, { signal: controller.signal }));
      // The requests that share a signal share one listener.
      expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      await Promise.all(calls);
    }
    expect(client.stats).toEqual({ pending: 0, incoming: 0 });
    expect(server.stats).toEqual({ pending: 0, incoming: 0 });
    // The listener of a signal no request carries is removed at the next macrotask.
    await new Promise((resolve) => setImmediate(resolve));
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // Every per-request timeout timer was cleared.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(
      timersBefore,
    );
    await client.close();
    expect(client.stats).toEqual({ pending: 0, incoming: 0 });
  }, 60_000);
});

describe('Connection: requests whose send fails', () => {
  it('fails every request of a batched write that never went out, each naming its method', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const connection = new Connection(new StdioServerTransport({ stdin, stdout }), { hooks: mcpHooks });
    open.push(connection);
    await connection.start();
    // Sent in one tick: one write for all three, which fails as the stream is gone before it happens.
    const sent = ['ping', 'tools/list', 'prompts/list'].map((method) =>
      connection.request(method).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    stdout.destroy();
    const errors = await Promise.all(sent);
    expect(errors.map((error) => (error as LocalError).code)).toEqual([
      'transport_error',
      'transport_error',
      'transport_error',
    ]);
    expect(errors.map((error) => (error as LocalError).message)).toEqual([
      'failed to send ping',
      'failed to send tools/list',
      'failed to send prompts/list',
    ]);
    expect(connection.stats.pending).toBe(0);
  });
});

describe('Connection: onfailure decides how a failed request ends', () => {
  it('an error response may be answered by resending under a new id; the retry settles the call', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const seen: unknown[] = [];
    const onfailure = (error: unknown, failed: FailedRequest) => {
      seen.push(error);
      return failed.resend({ ...failed.params, attempt: 2 }, { timeoutMs: 5_000 });
    };
    const call = peer.connection.request('tools/call', { name: 'echo' }, { onfailure });
    const first = await peer.next(1);
    await peer.send({ jsonrpc: '2.0', id: first.id, error: { code: -32022, message: 'try again' } });
    const second = await peer.next(2);
    expect(second.id).not.toEqual(first.id);
    expect(second.params).toEqual({ name: 'echo', attempt: 2 });
    await peer.send({ jsonrpc: '2.0', id: second.id, result: { content: [] } });
    await expect(call).resolves.toEqual({ content: [] });
    expect((seen[0] as RpcError).code).toBe(-32022);
    expect(peer.connection.stats.pending).toBe(0);
  });

  it('what onfailure throws is the caller error, for a timeout and for a request on a closed connection', async () => {
    const peer = await rawPeer();
    const onfailure = (error: unknown): never => {
      throw new Error(`mapped: ${(error as LocalError).code}`);
    };
    const timedOut = peer.connection.request('ping', undefined, { timeoutMs: 10, onfailure });
    await expect(timedOut).rejects.toThrow('mapped: timeout');
    await peer.connection.close();
    const late = peer.connection.request('ping', undefined, { onfailure });
    await expect(late).rejects.toThrow('mapped: connection_closed');
    // Without one, the connection's own error as before.
    await expect(peer.connection.request('ping')).rejects.toMatchObject({ code: 'connection_closed' });
  });
});

describe('Connection: onresult finishes a result, with the request tag', () => {
  it("onresult's return settles the call; the tag and the send time come back to it, and to onfailure", async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const tag = { caller: 'state' };
    const seen: SentRequest[] = [];
    const onresult = (result: Record<string, unknown>, sent: SentRequest) => {
      seen.push(sent);
      return { ...result, finished: sent.tag === tag };
    };
    const onfailure = (_error: unknown, failed: FailedRequest) => {
      seen.push(failed);
      return failed.resend({ ...failed.params, attempt: 2 }, { onresult });
    };
    const before = Date.now();
    const call = peer.connection.requestTagged('tools/call', { name: 'echo' }, { onresult, onfailure }, tag);
    const first = await peer.next(1);
    await peer.send({ jsonrpc: '2.0', id: first.id, error: { code: -32022, message: 'try again' } });
    // The resend keeps the tag; the options it is given finish its result.
    const second = await peer.next(2);
    await peer.send({ jsonrpc: '2.0', id: second.id, result: { content: [] } });
    await expect(call).resolves.toEqual({ content: [], finished: true });
    expect(seen.map((sent) => sent.tag)).toEqual([tag, tag]);
    expect(seen[1]!.params).toEqual({ name: 'echo', attempt: 2 });
    // startedAt is whole ms of the monotonic clock (clockMs floors performance.now) put on the epoch: it can
    // read up to a millisecond before a Date.now() taken just ahead of it.
    expect(seen[1]!.startedAt).toBeGreaterThanOrEqual(before - 1);
    expect(seen[1]!.startedAt).toBeLessThanOrEqual(Date.now());
    expect(peer.connection.stats.pending).toBe(0);
  });

  it('what onresult throws, or the promise it returns rejecting, is the caller error', async () => {
    const peer = await rawPeer();
    open.push(peer.connection);
    const badShape = new Error('bad shape');
    const thrown = peer.connection.request('ping', undefined, {
      onresult: () => {
        throw badShape;
      },
    });
    await peer.send({ jsonrpc: '2.0', id: (await peer.next(1)).id, result: {} });
    // The very object thrown (a failure resolves the caller's promise with a rejected one, which it follows).
    await expect(thrown).rejects.toBe(badShape);
    const later = peer.connection.request('ping', undefined, {
      onresult: () => Promise.reject(new Error('a later round failed')),
    });
    await peer.send({ jsonrpc: '2.0', id: (await peer.next(2)).id, result: {} });
    await expect(later).rejects.toThrow('a later round failed');
    // A plain request still resolves with the peer's result as it came.
    const plain = peer.connection.request('ping');
    await peer.send({ jsonrpc: '2.0', id: (await peer.next(3)).id, result: { ok: 1 } });
    await expect(plain).resolves.toEqual({ ok: 1 });
  });
});
