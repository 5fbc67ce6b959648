/**
 * stdio behaviour with real child processes that log every message they receive: the era cache (no second
 * probe, one process per connection), the initialize timeout, and the retry rules across a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { ClientOptions, StdioTarget } from '../../src/client/types.js';
import { freshCaches, waitFor } from './helpers.js';

const PEER = join(import.meta.dirname, 'fixtures', 'logging-stdio-peer.mjs');
const clients: McpClient[] = [];
let caches = freshCaches();
afterEach(async () => {
  caches = freshCaches();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function target(flags: string[]): StdioTarget {
  const stdio = { command: process.execPath, args: [PEER, ...flags] };
  return stdio;
}

async function connect(stdio: StdioTarget, options: ClientOptions = {}) {
  const stderr: string[] = [];
  const client = await McpClient.connect(stdio, {
    ...caches,
    ...options,
    onstderr: (line) => stderr.push(line),
  });
  clients.push(client);
  return { client, stderr };
}

const received = (stderr: string[]) =>
  stderr.filter((line) => line.startsWith('recv ')).map((line) => line.split(' ')[1]);
const pids = (stderr: string[]) =>
  stderr.filter((line) => line.startsWith('started ')).map((line) => Number(line.split(' ')[1]));

function markerFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'agentforge-audit-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return join(directory, 'crashed-once');
}

describe('era detection on stdio', () => {
  it('probes once per server: the same command line is not probed again, and no extra process is spawned', async () => {
    const stdio = target([]);
    const first = await connect(stdio);
    expect(first.client.era).toBe('handshake');
    await first.client.ping();
    const second = await connect(stdio);
    expect(second.client.era).toBe('handshake');
    await second.client.ping();
    // Stderr is its own pipe: the server's log line may trail its answer.
    await waitFor(() => received(first.stderr).includes('ping') && received(second.stderr).includes('ping'));
    expect(received(first.stderr)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'ping',
    ]);
    expect(received(second.stderr)).toEqual(['initialize', 'notifications/initialized', 'ping']);
    expect(pids(first.stderr)).toHaveLength(1);
    expect(pids(second.stderr)).toHaveLength(1);
  });

  it('a server that never answers initialize fails the connect within the timeout, and its process is gone', async () => {
    const stderr: string[] = [];
    const started = Date.now();
    await expect(
      McpClient.connect(target(['--silent']), {
        probeTimeoutMs: 150,
        initializeTimeoutMs: 300,
        onstderr: (line) => stderr.push(line),
      }),
    ).rejects.toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(received(stderr)).toEqual(['server/discover', 'initialize']);
    const [pid] = pids(stderr);
    await waitFor(() => {
      try {
        process.kill(pid ?? 0, 0);
        return false;
      } catch {
        return true;
      }
    });
  });
});

describe('retries across a restart', () => {
  const restart = { maxAttempts: 2, backoffMs: 200 };

  it('a read in flight when the server dies is retried once on the restarted server, after the backoff', async () => {
    const { client, stderr } = await connect(
      target(['--die-on=resources/read', `--marker=${markerFile()}`]),
      {
        restart,
      },
    );
    const started = Date.now();
    const read = await client.readResource({ uri: 'x://doc' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    await waitFor(() => pids(stderr).length === 2);
    const [first, second] = pids(stderr);
    expect(read.contents).toEqual([{ uri: 'x://doc', text: `read by ${second}` }]);
    expect(second).not.toBe(first);
  });

  it('tools/call is not retried on the restarted server unless the caller opts in', async () => {
    const plain = await connect(target(['--die-on=tools/call', `--marker=${markerFile()}`]), { restart });
    await plain.client.listTools();
    await expect(plain.client.callTool({ name: 'work' })).rejects.toMatchObject({ code: 'process_exited' });
    await waitFor(() => pids(plain.stderr).length === 2);
    await plain.client.ping();
    expect(received(plain.stderr).filter((method) => method === 'tools/call')).toHaveLength(1);

    const opted = await connect(target(['--die-on=tools/call', `--marker=${markerFile()}`]), { restart });
    await opted.client.listTools();
    const result = await opted.client.callTool({ name: 'work' }, { retry: true });
    await waitFor(() => pids(opted.stderr).length === 2);
    expect(result.content).toEqual([{ type: 'text', text: `done by ${pids(opted.stderr)[1]}` }]);
  });
});
