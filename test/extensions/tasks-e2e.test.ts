/**
 * The tasks extension end to end (SEP-2663): our client (TasksClient over McpClient) against our server in a
 * child process, over Streamable HTTP and over stdio: a task that completes, one that asks two inputs in turn,
 * cancellation (also racing completion), a task that outlives its TTL, polling resumed by a new client process,
 * and another principal's task id refused.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { ClientHandlers } from '../../src/client/types.js';
import { TasksClient, withTasksCapability } from '../../src/extensions/tasks/index.js';
import { LocalError, RpcError } from '../../src/jsonrpc/errors.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const SERVER = join(FIXTURES, 'tasks-server.mjs');
const RESUME = join(FIXTURES, 'tasks-resume-client.mjs');
const run = promisify(execFile);

interface HttpServer {
  url: string;
  child: ChildProcess;
}

async function startHttpServer(args: string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout?.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`tasks server exited with ${code}`)));
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { url, child };
}

async function stopHttpServer(server: HttpServer | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
}

const text = (result: { content?: ReadonlyArray<unknown> }) =>
  (result.content?.[0] as { text?: string } | undefined)?.text;

interface Transport {
  name: string;
  connect(handlers?: ClientHandlers, user?: string, serverArgs?: string[]): Promise<McpClient>;
}

function transports(http: () => HttpServer, ttlHttp: () => HttpServer): Transport[] {
  return [
    {
      name: 'Streamable HTTP',
      connect: (handlers, user, serverArgs) =>
        McpClient.connect(serverArgs ? ttlHttp().url : http().url, {
          capabilities: withTasksCapability(handlers?.elicitation ? { elicitation: {} } : {}),
          ...(handlers ? { handlers } : {}),
          headers: user ? { 'x-test-user': user } : {},
        }),
    },
    {
      name: 'stdio',
      connect: (handlers, _user, serverArgs) =>
        McpClient.connect(
          { command: process.execPath, args: [SERVER, '--stdio', ...(serverArgs ?? [])] },
          {
            capabilities: withTasksCapability(handlers?.elicitation ? { elicitation: {} } : {}),
            ...(handlers ? { handlers } : {}),
          },
        ),
    },
  ];
}

let http: HttpServer | undefined;
let ttlHttp: HttpServer | undefined;

beforeAll(async () => {
  [http, ttlHttp] = await Promise.all([startHttpServer(), startHttpServer(['--ttl-ms', '300'])]);
});

afterAll(async () => {
  await Promise.all([stopHttpServer(http), stopHttpServer(ttlHttp)]);
});

const setups = transports(
  () => http as HttpServer,
  () => ttlHttp as HttpServer,
);

describe.each(setups)('tasks over $name', (transport) => {
  it('returns a task-backed result transparently while other calls go on', async () => {
    await using client = await transport.connect();
    const tasks = new TasksClient(client, { pollIntervalMs: 20 });
    const seen: string[] = [];
    const pending = tasks.callTool(
      { name: 'render', arguments: { ms: 400 } },
      { ontask: (task) => seen.push(`task ${task.status}`), onstatus: (task) => seen.push(task.status) },
    );
    // A quick call is not held back by the task.
    expect(text(await client.callTool({ name: 'quick' }))).toBe('quick');
    expect(text(await pending)).toBe('rendered in 400 ms (task)');
    expect(seen[0]).toBe('task working');
    expect(seen.at(-1)).toBe('completed');
  });

  it('answers two input requests one at a time through the elicitation handler', async () => {
    const asked: string[] = [];
    const handlers: ClientHandlers = {
      elicitation: async (params) => {
        asked.push(params.message);
        return { action: 'accept', content: { answer: params.message.includes('name') ? 'Ada' : 'green' } };
      },
    };
    await using client = await transport.connect(handlers);
    const tasks = new TasksClient(client, { handlers, pollIntervalMs: 20 });
    const statuses: string[] = [];
    const result = await tasks.callTool({ name: 'interview' }, { onstatus: (t) => statuses.push(t.status) });
    expect(text(result)).toBe('Ada likes green');
    expect(asked).toEqual(['Your name?', 'Your colour?']);
    expect(statuses.filter((status) => status === 'input_required').length).toBeGreaterThanOrEqual(2);
  });

  it('cancels the task when the caller aborts, also when completion races the cancel', async () => {
    await using client = await transport.connect();
    const tasks = new TasksClient(client, { pollIntervalMs: 20 });
    const controller = new AbortController();
    const long = tasks.callTool(
      { name: 'render', arguments: { ms: 30_000 } },
      { signal: controller.signal, ontask: () => setTimeout(() => controller.abort(), 50) },
    );
    const error = await long.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LocalError);
    expect((error as LocalError).code).toBe('cancelled');

    // Racing: the cancel arrives about when the task completes; either end is fine, but it is one end, stable.
    const started = await tasks.start({ name: 'render', arguments: { ms: 120 } });
    if (!('task' in started)) throw new Error('render did not become a task');
    const taskId = started.task.taskId;
    await new Promise((resolve) => setTimeout(resolve, 110));
    await tasks.cancel(taskId);
    await tasks.cancel(taskId); // repeatable
    const settled = await tasks.wait(taskId).then(
      (result) => ({ status: 'completed', text: text(result) }),
      (caught: unknown) => ({ status: (caught as LocalError).code, text: undefined }),
    );
    const final = await tasks.get(taskId);
    expect(['completed', 'cancelled']).toContain(final.status);
    expect(settled.status).toBe(final.status);
    if (final.status === 'completed') expect(settled.text).toBe('rendered in 120 ms (task)');
    await tasks.cancel(taskId); // a terminal task still acknowledges
    expect((await tasks.get(taskId)).status).toBe(final.status);
  });

  it('forgets a task that outlives its TTL: its id is then unknown (-32602)', async () => {
    await using client = await transport.connect(undefined, undefined, ['--ttl-ms', '300']);
    const tasks = new TasksClient(client, { pollIntervalMs: 20 });
    const started = await tasks.start({ name: 'render', arguments: { ms: 2000 } });
    if (!('task' in started)) throw new Error('render did not become a task');
    expect(started.task.ttlMs).toBe(300);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const error = await tasks.get(started.task.taskId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(-32602);
  });
});

describe('tasks over Streamable HTTP across clients', () => {
  it('resumes polling from a new client process given the task id', async () => {
    const url = (http as HttpServer).url;
    const first = await McpClient.connect(url, {
      capabilities: withTasksCapability(),
      headers: { 'x-test-user': 'alice' },
    });
    const started = await new TasksClient(first).start({ name: 'render', arguments: { ms: 600 } });
    await first.close();
    if (!('task' in started)) throw new Error('render did not become a task');
    const { stdout } = await run(process.execPath, [RESUME, url, started.task.taskId, 'alice']);
    expect(JSON.parse(stdout.trim())).toEqual({ text: 'rendered in 600 ms (task)' });
  });

  it("refuses another principal's task id as unknown", async () => {
    const url = (http as HttpServer).url;
    await using alice = await McpClient.connect(url, {
      capabilities: withTasksCapability(),
      headers: { 'x-test-user': 'alice' },
    });
    await using bob = await McpClient.connect(url, {
      capabilities: withTasksCapability(),
      headers: { 'x-test-user': 'bob' },
    });
    const started = await new TasksClient(alice).start({ name: 'render', arguments: { ms: 5000 } });
    if (!('task' in started)) throw new Error('render did not become a task');
    const taskId = started.task.taskId;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const attempt of [
      () => new TasksClient(bob).get(taskId),
      () => new TasksClient(bob).cancel(taskId),
      () => new TasksClient(bob).update(taskId, {}),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).code).toBe(-32602);
    }
    // Bob's cancel did nothing: the task still runs for Alice, who can cancel it.
    expect((await new TasksClient(alice).get(taskId)).status).toBe('working');
    const { stdout } = await run(process.execPath, [RESUME, url, taskId, 'bob']);
    expect(JSON.parse(stdout.trim())).toMatchObject({ code: -32602 });
    await new TasksClient(alice).cancel(taskId);
  });
});
