/** Real example servers for the agent tests: paths, spawned HTTP servers, and configs. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, type AgentOptions } from '../../src/agent/agent.js';
import { parseConfig } from '../../src/agent/config.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { McpHost } from '../../src/agent/host.js';
import { readUrl } from '../../src/cli/demo.js';
import { type CreateModelOptions, createModel } from '../../src/providers/index.js';
import {
  type FakeProvider,
  type FakeProviderKind,
  type FakeScript,
  startFakeProvider,
} from '../support/fake-providers/index.js';

export const PROVIDERS: FakeProviderKind[] = ['openai', 'openai-responses', 'anthropic', 'gemini'];

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WEATHER = `${ROOT}examples/weather/server.mjs`;
export const ORDERS = `${ROOT}examples/customer-service/orders.mjs`;
export const LOGISTICS = `${ROOT}examples/customer-service/logistics.mjs`;
export const REFUNDS = `${ROOT}examples/customer-service/refunds.mjs`;
export const LAB = `${ROOT}test/agent/fixtures/lab-server.mjs`;
export const STUCK_LIST = `${ROOT}test/agent/fixtures/stuck-list-server.mjs`;
export const LEGACY_SSE = `${ROOT}test/agent/fixtures/legacy-sse-server.mjs`;

export interface HttpExample extends AsyncDisposable {
  readonly url: string;
  readonly child: ChildProcess;
  close(): Promise<void>;
}

/** Spawns an example (or the lab server) with `--http --port 0` and waits for its URL. */
export async function startHttp(script: string, ...args: string[]): Promise<HttpExample> {
  const child = spawn(process.execPath, [script, ...args, '--http', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await readUrl(child, script).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { url, child, close, [Symbol.asyncDispose]: close };
}

export const stdio = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: [script, ...args],
});

export function config(servers: Record<string, Record<string, unknown>>) {
  return parseConfig({ mcpServers: servers }, { source: 'test mcp.json' });
}

/** A fake provider, a host over real servers (all must be ready) and an agent approving everything. */
export interface Harness extends AsyncDisposable {
  readonly fake: FakeProvider;
  readonly host: McpHost;
  readonly agent: Agent;
  readonly events: AgentEvent[];
  run(task: string): ReturnType<Agent['run']>;
}

export async function harness(
  kind: FakeProviderKind,
  script: FakeScript,
  servers: Record<string, Record<string, unknown>>,
  agentOptions: Partial<AgentOptions> = {},
  modelOptions: CreateModelOptions = {},
): Promise<Harness> {
  const fake = await startFakeProvider(kind, script, { chunkSize: 5 });
  let host: McpHost | undefined;
  try {
    host = await McpHost.start(config(servers), { reconnect: false, retry: { maxAttempts: 1 } });
    const notReady = host.servers().filter((s) => s.state !== 'ready');
    if (notReady.length > 0) throw new Error(`servers not ready: ${JSON.stringify(notReady)}`);
    const agent = new Agent({
      model: createModel(fake.spec('test-model'), fake.env, { maxRetries: 0, ...modelOptions }),
      host,
      approval: { policy: 'all' },
      ...agentOptions,
    });
    const events: AgentEvent[] = [];
    const close = async () => {
      await host?.close();
      await fake.close();
    };
    return {
      fake,
      host,
      agent,
      events,
      run: (task) => agent.run(task, { onEvent: (event) => events.push(event) }),
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await host?.close();
    await fake.close();
    throw error;
  }
}
