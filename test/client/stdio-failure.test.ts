/** Failure behaviour over stdio with real child processes: no hangs, prompt errors, restarts. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { FIXTURES, LEGACY_SERVER, waitFor } from './helpers.js';

const PEER = join(FIXTURES, 'client-raw-stdio-peer.mjs');
const clients: McpClient[] = [];

async function connect(flags: string[], options: Parameters<typeof McpClient.connect>[1] = {}) {
  const stderr: string[] = [];
  const client = await McpClient.connect(
    { command: process.execPath, args: [PEER, ...flags] },
    { onstderr: (line) => stderr.push(line), ...options },
  );
  clients.push(client);
  return { client, stderr };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe('stdio failures', () => {
  it('reports a command that cannot start', async () => {
    await expect(McpClient.connect({ command: '/nonexistent/mcp-server' })).rejects.toMatchObject({
      code: 'transport_error',
      message: /failed to start/,
    });
  });

  it('rejects every pending call promptly with the exit reason when the server dies', async () => {
    const { client } = await connect([]);
    const hanging = client.callTool({ name: 'hang' }).catch((e: unknown) => e);
    const started = Date.now();
    const dying = client.callTool({ name: 'die' }).catch((e: unknown) => e);
    const [first, second] = await Promise.all([hanging, dying]);
    expect(Date.now() - started).toBeLessThan(3000);
    for (const error of [first, second]) {
      expect(error).toBeInstanceOf(LocalError);
      expect((error as LocalError).code).toBe('process_exited');
      expect((error as LocalError).message).toMatch(/exited with code 3.*simulated crash/s);
    }
    // Later calls fail fast too, instead of waiting for a timeout.
    await expect(client.listTools()).rejects.toMatchObject({ code: 'process_exited' });
  });

  it('times out a request and sends notifications/cancelled for it', async () => {
    const { client, stderr } = await connect([]);
    const error = await client.callTool({ name: 'hang' }, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout' });
    await waitFor(() => stderr.some((line) => line.startsWith('cancelled ')));
  });

  it('cancels on AbortSignal with notifications/cancelled', async () => {
    const { client, stderr } = await connect([]);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'hang' }, { signal: controller.signal });
    setTimeout(() => controller.abort('user pressed stop'), 50);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await waitFor(() => stderr.some((line) => line.startsWith('cancelled ')));
  });

  it('falls back to initialize when the probe times out', async () => {
    const started = Date.now();
    const { client, stderr } = await connect(['--silent-probe'], { probeTimeoutMs: 300 });
    expect(client.era).toBe('handshake');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    await waitFor(() => stderr.some((line) => line.startsWith('started')));
    expect(stderr.filter((line) => line.startsWith('started'))).toHaveLength(1);
  });

  it('progress restarts the timeout, but only up to the maximum', async () => {
    const client = await McpClient.connect({ command: process.execPath, args: [LEGACY_SERVER, 'stdio'] });
    clients.push(client);
    const onprogress = () => {};
    // 600 ms of work with progress every 120 ms: a 300 ms timeout keeps being restarted.
    await expect(
      client.callTool({ name: 'slow', arguments: { ms: 600 } }, { timeoutMs: 300, onprogress }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'slept 600' }] });
    // The same call with a 350 ms hard cap fails however much progress arrives.
    await expect(
      client.callTool(
        { name: 'slow', arguments: { ms: 600 } },
        { timeoutMs: 300, maxTotalTimeoutMs: 350, onprogress },
      ),
    ).rejects.toMatchObject({ code: 'timeout' });
  });
});

describe('restart policy', () => {
  it('restarts a dead server, re-subscribes, and serves idempotent reads again', async () => {
    const { client, stderr } = await connect([], { restart: { maxAttempts: 3, backoffMs: 50 } });
    const restarts: number[] = [];
    client.on('restart', (event) => restarts.push(event.attempt));
    await client.subscribe({ resourceSubscriptions: ['test://watched'] }, () => {});
    // Stderr and stdout are separate pipes: the server's log line may trail its answer.
    await waitFor(() => stderr.filter((line) => line === 'subscribe test://watched').length === 1);
    // tools/call is never retried: the call that killed the server fails.
    await expect(client.callTool({ name: 'die' })).rejects.toMatchObject({ code: 'process_exited' });
    // A read waits for the restart and succeeds on the new process.
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('hang');
    expect(restarts).toEqual([1]);
    await waitFor(() => stderr.filter((line) => line.startsWith('started')).length === 2);
    await waitFor(() => stderr.filter((line) => line === 'subscribe test://watched').length === 2);
  });

  it('re-sends subscriptions/listen after restarting a modern server', async () => {
    const { client, stderr } = await connect(['--modern'], { restart: { maxAttempts: 2, backoffMs: 20 } });
    expect(client.era).toBe('stateless');
    const subscription = await client.subscribe({ toolsListChanged: true }, () => {});
    expect(subscription.acknowledged).toEqual({ toolsListChanged: true });
    await expect(client.callTool({ name: 'die' })).rejects.toMatchObject({ code: 'process_exited' });
    await waitFor(() => stderr.filter((line) => line.startsWith('listen ')).length === 2);
  });

  it('gives up after maxAttempts and reports the close', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'agentforge-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const marker = join(directory, 'started');
    const { client } = await connect([`--once=${marker}`], { restart: { maxAttempts: 2, backoffMs: 10 } });
    const closes: unknown[] = [];
    client.on('close', (event) => closes.push(event.error));
    await expect(client.callTool({ name: 'die' })).rejects.toMatchObject({ code: 'process_exited' });
    // Every restart attempt exits at once: after two the client stops trying and says why.
    const error = await client.listTools().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'process_exited' });
    expect((error as Error).message).toMatch(/refusing to start twice/);
    expect(closes).toHaveLength(1);
  });
});
