/**
 * The server's Extension seam (src/server/extension.ts) in both eras: `capabilities.extensions` advertised
 * (server/discover and initialize), an extension's methods refused with -32021 to a client that did not declare
 * it (per request on 2026-07-28, from `initialize` on a handshake session), and the tasks extension working on
 * a handshake session as on 2026-07-28.
 */
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/types.js';
import { TasksClient, TasksExtension, withTasksCapability } from '../../src/extensions/tasks/index.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/index.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'seam', version: '1.0.0' });
  const tasks = new TasksExtension({ pollIntervalMs: 10, immediateResultMs: 0 });
  server.use(tasks);
  server.use({
    id: 'com.example/echo',
    settings: { level: 1 },
    gated: true,
    methods: { 'echo/say': { handler: (params) => ({ said: String(params?.text ?? '') }) } },
  });
  server.registerTool('slow', {}, async (_args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { content: [{ type: 'text', text: `slow done (${ctx.task ? 'task' : 'inline'})` }] };
  });
  server.registerTool('must_be_task', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  tasks.declare('slow', 'optional').declare('must_be_task', 'required');
  return server;
}

const eras: Array<{ name: string; options: ClientOptions }> = [
  { name: '2026-07-28', options: {} },
  { name: 'handshake 2025-11-25', options: { protocolVersion: '2025-11-25' } },
];

describe.each(eras)('extension seam, $name', ({ options }) => {
  it('advertises capabilities.extensions and gates extension methods on the client declaring them', async () => {
    const server = buildServer();
    const listening = await server.listen();
    try {
      await using plain = await McpClient.connect(listening.url, options);
      expect(plain.serverCapabilities.extensions).toEqual({
        'io.modelcontextprotocol/tasks': {},
        'com.example/echo': { level: 1 },
      });
      const refused = await plain.request('echo/say', { text: 'hi' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RpcError);
      expect((refused as RpcError).code).toBe(-32021);
      expect((refused as RpcError).data).toEqual({
        requiredCapabilities: { extensions: { 'com.example/echo': {} } },
      });
      const required = await plain.callTool({ name: 'must_be_task' }).catch((error: unknown) => error);
      expect((required as RpcError).code).toBe(-32021);
      // An optional task tool runs inline for a client without the extension.
      const inline = await plain.callTool({ name: 'slow' });
      expect(inline.content[0]).toEqual({ type: 'text', text: 'slow done (inline)' });

      await using declaring = await McpClient.connect(listening.url, {
        ...options,
        capabilities: { extensions: { 'com.example/echo': {}, 'io.modelcontextprotocol/tasks': {} } },
      });
      expect(await declaring.request('echo/say', { text: 'hi' })).toMatchObject({ said: 'hi' });
      const tasks = new TasksClient(declaring, { pollIntervalMs: 10 });
      const started = await tasks.start({ name: 'slow' });
      expect('task' in started).toBe(true);
      if ('task' in started) {
        expect(started.task).toMatchObject({ status: 'working', ttlMs: 3_600_000, pollIntervalMs: 10 });
        expect((await tasks.wait(started.task.taskId)).content[0]).toEqual({
          type: 'text',
          text: 'slow done (task)',
        });
      }
      expect(await new TasksClient(declaring).callTool({ name: 'must_be_task' })).toMatchObject({
        content: [{ type: 'text', text: 'ok' }],
      });
      const removed = await declaring
        .request('tasks/result', { taskId: 'x' })
        .catch((error: unknown) => error);
      expect((removed as RpcError).code).toBe(-32601);
    } finally {
      await listening.close();
    }
  });
});

it('refuses a second extension with the same id or a method another one provides', () => {
  const server = new McpServer({ name: 'seam', version: '1.0.0' });
  server.use(new TasksExtension());
  expect(() => server.use(new TasksExtension())).toThrow(/already in use/);
  expect(() =>
    server.use({ id: 'com.example/other', methods: { 'tasks/get': { handler: () => ({}) } } }),
  ).toThrow(/tasks\/get is already served/);
});

it('declares the tasks extension on top of the given capabilities', () => {
  expect(withTasksCapability({ elicitation: {}, extensions: { a: {} } })).toEqual({
    elicitation: {},
    extensions: { a: {}, 'io.modelcontextprotocol/tasks': {} },
  });
});
