/**
 * One server binary (the compiled conformance fixture, `--stdio`), real child processes, both eras
 * (2026-07-28 basic/transports/stdio: Backward Compatibility): a 2026-07-28 client speaking raw newline-delimited
 * JSON, and the official SDK client (1.x) initializing at 2025-11-25. Every line the server writes is checked
 * against its revision's schema. Then the pipe edge cases: EPIPE and stdin EOF with work in flight.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, describe, expect, it } from 'vitest';
import { delay } from '../../src/util/abort.js';
import { MODERN, modernMeta, validateEmitted } from './support.js';

const root = join(import.meta.dirname, '..', '..');
const FIXTURE = join(root, 'build', 'conformance', 'server-fixture.js');
const SLOW_FIXTURE = join(root, 'test', 'fixtures', 'server-core-stdio.mjs');

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A raw line peer: writes JSON lines, collects every line the server writes (parsed) and its stderr. */
function start(script: string, args: string[] = []) {
  const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: 'pipe' });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const until = async (predicate: (line: Record<string, unknown>) => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = lines.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching line; got ${JSON.stringify(lines)}`);
      await delay(10);
    }
  };
  return { child, lines, send, until, exited, stderr: () => stderr };
}

describe('one stdio binary, both eras', () => {
  it('answers a 2026-07-28 client: discover, _meta requests, progress, and the per-request errors', async () => {
    const peer = start(FIXTURE, ['--stdio']);
    const methods = new Map<unknown, string>();
    const request = (id: number, method: string, params: Record<string, unknown>) => {
      methods.set(id, method);
      peer.send({ jsonrpc: '2.0', id, method, params });
    };
    request(1, 'server/discover', { _meta: modernMeta() });
    request(2, 'tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { ...modernMeta(), progressToken: 'p1' },
    });
    request(3, 'tools/call', { name: 'test_tool_with_logging', arguments: {}, _meta: modernMeta() });
    request(4, 'server/discover', {});
    request(5, 'tools/list', {
      _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }),
    });
    request(6, 'ping', { _meta: modernMeta() });
    for (const id of [1, 2, 3, 4, 5, 6]) await peer.until((line) => line.id === id);
    for (const line of peer.lines) validateEmitted(MODERN, line as never, methods.get(line.id));

    const byId = (id: number) => peer.lines.find((line) => line.id === id) as Record<string, any>;
    expect(byId(1).result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining([MODERN, '2025-11-25']),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agentforge-conformance-server' } },
    });
    const progress = peer.lines.filter((line) => line.method === 'notifications/progress');
    expect(progress.map((line) => (line.params as { progress: number }).progress)).toEqual([0, 50, 100]);
    expect(peer.lines.indexOf(progress[2] as never)).toBeLessThan(peer.lines.indexOf(byId(2)));
    // No logLevel in _meta: no notifications/message at all.
    expect(peer.lines.some((line) => line.method === 'notifications/message')).toBe(false);
    expect(byId(4).error.code).toBe(-32602);
    expect(byId(5).error).toMatchObject({ code: -32022, data: { supported: [MODERN] } });
    expect(byId(6).error.code).toBe(-32601);
    peer.child.stdin.end();
    expect(await peer.exited).toEqual({ code: 0, signal: null });
  });

  it('answers the official SDK client at 2025-11-25 (initialize, tools, elicitation on the session)', async () => {
    const inner = new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE, '--stdio'],
      cwd: root,
      stderr: 'pipe',
    });
    // Every server message is checked against the negotiated revision (the SDK pins 2025-11-25).
    const problems: string[] = [];
    const methods = new Map<unknown, string>();
    const checked: Transport = {
      start: () => inner.start(),
      close: () => inner.close(),
      send: (message) => {
        if ('method' in message && 'id' in message) methods.set(message.id, message.method);
        return inner.send(message);
      },
    };
    inner.onmessage = (message) => {
      try {
        validateEmitted('2025-11-25', message as never, methods.get((message as { id?: unknown }).id));
      } catch (error) {
        problems.push((error as Error).message);
      }
      checked.onmessage?.(message);
    };
    inner.onclose = () => checked.onclose?.();
    inner.onerror = (error) => checked.onerror?.(error);
    const client = new Client(
      { name: 'sdk-client', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ElicitRequestSchema,
      async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }),
    );
    try {
      await client.connect(checked);
      expect(client.getServerVersion()?.name).toBe('agentforge-conformance-server');
      const tools = await client.listTools();
      expect(tools.tools.length).toBeGreaterThan(10);
      const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
      expect(elicited.content).toEqual([
        {
          type: 'text',
          text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
        },
      ]);
      expect(elicited).not.toHaveProperty('resultType');
      const read = await client.readResource({ uri: 'test://static-text' });
      expect(read.contents[0]).toMatchObject({ text: 'This is the content of the static text resource.' });
      expect(read).not.toHaveProperty('ttlMs');
      expect(problems).toEqual([]);
    } finally {
      await client.close();
    }
  });
  it('keeps serving after hostile lines: garbage, bad UTF-8, a batch, a stray response, deep nesting', async () => {
    const peer = start(FIXTURE, ['--stdio']);
    const discover = (id: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'server/discover',
      params: { _meta: modernMeta() },
    });
    peer.child.stdin.write('not json\n');
    peer.child.stdin.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"u","method":"x","params":{"s":"'),
        Buffer.from([0xff]),
        Buffer.from('"}}\n'),
      ]),
    );
    peer.send([discover('in-batch')]);
    peer.send({ jsonrpc: '2.0', id: 'stray', result: {} });
    peer.child.stdin.write(
      `{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}\n`,
    );
    peer.send(discover('after'));
    const after = await peer.until((line) => line.id === 'after');
    expect(after.result).toMatchObject({ resultType: 'complete' });
    // A batch is not a 2026-07-28 (or 2025-06-18+) message: -32600, and nothing inside it runs.
    expect(peer.lines.find((line) => 'error' in line && !('id' in line))).toMatchObject({
      error: { code: -32600 },
    });
    expect(peer.lines.some((line) => line.id === 'in-batch' || line.id === 'stray')).toBe(false);
    for (const line of peer.lines) validateEmitted(MODERN, line as never);
    peer.child.stdin.end();
    expect(await peer.exited).toEqual({ code: 0, signal: null });
  });
});

describe('pipe edge cases', () => {
  it('EPIPE: the client closes its read end mid-call; the server exits on its own, without a crash trace', async () => {
    const peer = start(FIXTURE, ['--stdio']);
    peer.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { ...modernMeta(), progressToken: 1 },
      },
    });
    await peer.until((line) => line.method === 'notifications/progress');
    // stdin stays open: the next progress write hitting the closed pipe alone must end the server.
    peer.child.stdout.destroy();
    const outcome = await Promise.race([peer.exited, delay(5000).then(() => 'still running')]);
    expect(outcome).toEqual({ code: 0, signal: null });
    expect(peer.stderr()).not.toMatch(/EPIPE|Unhandled|uncaught|at .*\.js:\d+/i);
  });

  it('stdin EOF with a call in flight: the handler is aborted and the process exits promptly', async () => {
    for (const era of ['stateless', 'handshake'] as const) {
      const peer = start(SLOW_FIXTURE);
      if (era === 'handshake') {
        peer.send({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'c', version: '1' },
          },
        });
        await peer.until((line) => line.id === 0);
        peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      const meta = era === 'stateless' ? { _meta: modernMeta() } : {};
      peer.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'slow', arguments: {}, ...meta },
      });
      const started = Date.now();
      while (!peer.stderr().includes(`slow: started (${era})`)) {
        if (Date.now() - started > 5000) throw new Error(`slow never started: ${peer.stderr()}`);
        await delay(10);
      }
      peer.child.stdin.end();
      const outcome = await Promise.race([peer.exited, delay(5000).then(() => 'still running')]);
      expect(outcome, era).toEqual({ code: 0, signal: null });
      expect(peer.stderr()).toContain(`slow: aborted (${era})`);
    }
  });
});
