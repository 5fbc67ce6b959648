/** Both eras over stdio with real child processes (the compiled fixture and a small watcher fixture). */
import { spawn as spawnProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import { mcpHooks } from '../../src/mcp/hooks.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { delay } from '../../src/util/abort.js';
import { modernMeta, waitFor } from './support.js';

const root = join(import.meta.dirname, '..', '..');
const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

async function spawn(script: string, args: string[] = []) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport(
    { command: process.execPath, args: [join(root, script), ...args], cwd: root },
    { onstderr: (line) => stderr.push(line) },
  );
  const connection = new Connection(transport, { hooks: mcpHooks });
  const requests: Array<{ method: string; params: unknown }> = [];
  connection.setRequestHandler('elicitation/create', (params) => {
    requests.push({ method: 'elicitation/create', params });
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  });
  await connection.start();
  open.push(connection);
  return { connection, stderr, requests };
}

describe('the conformance fixture over stdio', () => {
  it('serves a 2026-07-28 client and a handshake client on the same process', async () => {
    const { connection, requests } = await spawn('build/conformance/server-fixture.js', ['--stdio']);
    const discovered = await connection.request('server/discover', { _meta: modernMeta() });
    expect(discovered).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28']),
    });
    const first = await connection.request('tools/call', {
      name: 'test_input_required_result_elicitation',
      arguments: {},
      _meta: modernMeta(),
    });
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: {} } });
    const done = await connection.request('tools/call', {
      name: 'test_input_required_result_elicitation',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Stdio' } } },
      requestState: first.requestState,
      _meta: modernMeta(),
    });
    expect(done).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Stdio!' }],
    });

    const init = await connection.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'legacy', version: '1' },
    });
    expect(init).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'agentforge-conformance-server' },
    });
    await connection.notify('notifications/initialized');
    const legacy = await connection.request('tools/call', {
      name: 'test_elicitation',
      arguments: { message: 'Who?' },
    });
    expect(legacy).toEqual({
      content: [
        {
          type: 'text',
          text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
        },
      ],
    });
    expect(requests).toMatchObject([{ method: 'elicitation/create', params: { message: 'Who?' } }]);
    // Legacy results carry no 2026-07-28 fields.
    expect(legacy).not.toHaveProperty('resultType');
  });

  it('exits on its own, with code 0, when stdin closes', async () => {
    const child = spawnProcess(
      process.execPath,
      [join(root, 'build/conformance/server-fixture.js'), '--stdio'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    try {
      const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      child.stdin?.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
      const outcome = await Promise.race([exit, delay(5000).then(() => 'still running' as const)]);
      expect(outcome).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('cancellation over stdio', () => {
  it('aborts a stateless handler on notifications/cancelled and sends no response', async () => {
    const child = await spawn('test/fixtures/server-core-stdio.mjs');
    const controller = new AbortController();
    const call = child.connection.request(
      'tools/call',
      { name: 'slow', arguments: {}, _meta: modernMeta() },
      {
        signal: controller.signal,
      },
    );
    await waitFor(() => child.stderr.some((line) => line.includes('slow: started (stateless)')), 5000);
    controller.abort('stop');
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await waitFor(() => child.stderr.some((line) => line.includes('slow: aborted (stateless)')), 5000);
  });

  it('aborts a session handler on notifications/cancelled', async () => {
    const child = await spawn('test/fixtures/server-core-stdio.mjs');
    await child.connection.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    await child.connection.notify('notifications/initialized');
    const controller = new AbortController();
    const call = child.connection.request(
      'tools/call',
      { name: 'slow', arguments: {} },
      { signal: controller.signal },
    );
    await waitFor(() => child.stderr.some((line) => line.includes('slow: started (handshake)')), 5000);
    controller.abort('stop');
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await waitFor(() => child.stderr.some((line) => line.includes('slow: aborted (handshake)')), 5000);
    await delay(50);
  });
});

describe('2026-07-28 requests still running over stdio', () => {
  for (const hooked of [false, true]) {
    it(`are each answered once they settle, interleaved with ones answered at once${hooked ? ' (through a request hook)' : ''}`, async () => {
      const child = await spawn('test/fixtures/server-core-stdio.mjs', hooked ? ['--hook'] : []);
      const call = (args: Record<string, unknown>) =>
        child.connection.request('tools/call', { name: 'later', arguments: args, _meta: modernMeta() });
      const counts = (args: Record<string, unknown>) =>
        child.connection.request('tools/call', {
          name: 'counts-later',
          arguments: args,
          _meta: modernMeta(),
        });
      const calls = [
        call({ ms: 60, text: 'slow' }),
        call({ text: 'now' }),
        call({ ms: 20, text: 'soon' }),
        child.connection.request('tools/call', { name: 'fails-later', arguments: {}, _meta: modernMeta() }),
        counts({ count: 3 }),
        counts({ count: 'three' }),
      ];
      const [slow, now, soon, failed, counted, miscounted] = (await Promise.all(calls)) as Array<
        Record<string, unknown>
      >;
      expect(slow).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slow' }] });
      expect(now).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'now' }] });
      expect(soon).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'soon' }] });
      // A handler's failure is the tool's error, answered when it happens.
      expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'it went wrong' }] });
      // The result of a handler that settled later is still checked against the tool's outputSchema.
      expect(counted).toMatchObject({ resultType: 'complete', structuredContent: { count: 3 } });
      expect(miscounted).toMatchObject({ isError: true });
      // Each call finished by its own tool's steps (shared by the tool's calls): its name in the message.
      expect(JSON.stringify(miscounted)).toContain('Tool counts-later returned output that does not match');
      // Every request was answered: nothing is left waiting.
      expect(child.connection.stats.pending).toBe(0);
      if (hooked) {
        await waitFor(() => child.stderr.filter((line) => line === 'hook: tools/call complete').length === 6);
      } else expect(child.stderr.filter((line) => line.startsWith('hook:'))).toEqual([]);
    });
  }
});
