/** Real example servers for the agent tests: paths, spawned HTTP servers, and configs. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/agent/config.js';
import { readUrl } from '../../src/cli/demo.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WEATHER = `${ROOT}examples/weather/server.mjs`;
export const ORDERS = `${ROOT}examples/customer-service/orders.mjs`;
export const LOGISTICS = `${ROOT}examples/customer-service/logistics.mjs`;
export const REFUNDS = `${ROOT}examples/customer-service/refunds.mjs`;
export const LAB = `${ROOT}test/agent/fixtures/lab-server.mjs`;

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
