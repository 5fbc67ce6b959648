import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Connection, LocalError } from '../../src/jsonrpc/index.js';
import { mcpHooks } from '../../src/mcp/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';

/** A connection whose peer never answers: every request can only time out or be cancelled. */
async function silentPeer() {
  const [local, remote] = InMemoryTransport.createLinkedPair();
  remote.onmessage = () => {};
  await remote.start();
  const connection = new Connection(local, { hooks: mcpHooks });
  await connection.start();
  return connection;
}

async function failure(promise: Promise<unknown>): Promise<LocalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LocalError);
  return error as LocalError;
}

describe('Connection: request timeouts on one shared timer', () => {
  it('a short timeout sent after a long one still fires on time', async () => {
    const connection = await silentPeer();
    try {
      const long = connection.request('slow', {}, { timeoutMs: 5_000 });
      long.catch(() => {});
      const started = Date.now();
      const error = await failure(connection.request('quick', {}, { timeoutMs: 60 }));
      expect(error.code).toBe('timeout');
      expect(error.message).toContain('request quick timed out');
      expect(Date.now() - started).toBeLessThan(1_000);
      // The long one is still pending: only what was due expired.
      expect(connection.stats.pending).toBe(1);
    } finally {
      await connection.close();
    }
  });

  it('expires requests in deadline order, each with its own timeout in the error data', async () => {
    const connection = await silentPeer();
    try {
      const order: string[] = [];
      const calls = [150, 50, 100].map((timeoutMs) =>
        failure(connection.request(`t${timeoutMs}`, {}, { timeoutMs })).then((error) => {
          order.push(error.message.split(' ')[1] as string);
          return error;
        }),
      );
      const errors = await Promise.all(calls);
      expect(order).toEqual(['t50', 't100', 't150']);
      expect(errors.map((error) => (error.data as { timeoutMs: number }).timeoutMs)).toEqual([150, 50, 100]);
      expect(connection.stats.pending).toBe(0);
    } finally {
      await connection.close();
    }
  });

  it('a request answered in time is never timed out later, and the next one still is', async () => {
    const [local, remote] = InMemoryTransport.createLinkedPair();
    remote.onmessage = (message) => {
      const request = message as { id: number; method: string };
      if (request.method === 'fast') void remote.send({ jsonrpc: '2.0', id: request.id, result: {} });
    };
    await remote.start();
    const connection = new Connection(local, { hooks: mcpHooks });
    await connection.start();
    try {
      await expect(connection.request('fast', {}, { timeoutMs: 40 })).resolves.toEqual({});
      await new Promise((resolve) => setTimeout(resolve, 80));
      const error = await failure(connection.request('never', {}, { timeoutMs: 40 }));
      expect(error.code).toBe('timeout');
    } finally {
      await connection.close();
    }
  });

  it('a request without a timeout is never expired, beside ones that are; the timeout error says how long it ran', async () => {
    const connection = await silentPeer();
    try {
      const open = connection.request('open', {}, { timeoutMs: Number.POSITIVE_INFINITY });
      open.catch(() => {});
      const started = Date.now();
      const error = await failure(connection.request('timed', {}, { timeoutMs: 80 }));
      expect(error.code).toBe('timeout');
      const ran = Number(/after (\d+) ms/.exec(error.message)?.[1]);
      expect(ran).toBeGreaterThanOrEqual(79);
      expect(ran).toBeLessThanOrEqual(Date.now() - started + 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(connection.stats.pending).toBe(1);
    } finally {
      await connection.close();
    }
  });

  it('a wall clock set forward expires nothing early (the deadlines are on a monotonic clock)', async () => {
    const connection = await silentPeer();
    const realNow = Date.now;
    try {
      const waiting = connection.request('waiting', {}, { timeoutMs: 300 });
      waiting.catch(() => {});
      Date.now = () => realNow() + 3_600_000;
      // The shared timer is armed for the 300 ms deadline; a request sent now re-arms it for an earlier one,
      // and when that fires, the first must not be found due by the wall clock's hour.
      await failure(connection.request('short', {}, { timeoutMs: 20 }));
      expect(connection.stats.pending).toBe(1);
    } finally {
      Date.now = realNow;
      await connection.close();
    }
  });

  it('does not keep a process alive once its requests are answered', () => {
    // A child that makes one request with the default 60 s timeout, gets its answer, and should then exit.
    const script = `
      const { Connection } = await import(${JSON.stringify(new URL('../../dist/jsonrpc/index.js', import.meta.url).href)});
      const { InMemoryTransport } = await import(${JSON.stringify(new URL('../../dist/transports/memory/index.js', import.meta.url).href)});
      const [a, b] = InMemoryTransport.createLinkedPair();
      const server = new Connection(b);
      server.setRequestHandler('ping', () => ({}));
      const client = new Connection(a);
      await server.start();
      await client.start();
      await client.request('ping');
      console.log('answered');
    `;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('answered');
    expect(run.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
