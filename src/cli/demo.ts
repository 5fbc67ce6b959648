/**
 * `agentforge demo` (what `npm run demo` runs): starts the bundled example servers (weather and logistics over
 * stdio, orders and refunds over Streamable HTTP, all written with agentforge's server library), then runs
 * one agent task end to end and prints each step of the agent loop as it happens: [connect] the servers,
 * [discover] their tools, the tool [registry], then per turn [think] (the model and the tool calls it chose),
 * [act] (tools/call), [observe] (the result), and finally the [answer] and [close].
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from '../agent/agent.js';
import { parseApprovalPolicy } from '../agent/approval.js';
import { parseConfig } from '../agent/config.js';
import { DEMO_MODEL_LABEL } from '../agent/demo-model.js';
import { McpHost } from '../agent/host.js';
import { trackChild, untrackChild } from '../transports/stdio/children.js';
import { packageRoot } from '../util/package-root.js';
import { describeRegistry, describeServers, renderEvent } from './render.js';
import { chooseModel, stderrLogger } from './setup.js';
import { Terminal } from './terminal.js';

/** The example servers the demo starts, shipped in the package beside dist/. */
function example(file: string): string {
  return join(packageRoot(), 'examples', file);
}

const DEMO_TASK =
  'Where is my order 12345 and when will it arrive? Also, what is the weather in Hangzhou today?';

const OPTIONS = {
  model: { type: 'string', short: 'm' },
  task: { type: 'string', short: 't' },
  approve: { type: 'string' },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export async function demoCommand(argv: string[], signal?: AbortSignal): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const chosen = (await chooseModel(values.model, process.env, true))!;
  const label = chosen.source === 'demo' ? `${chosen.model.id}: ${DEMO_MODEL_LABEL}` : chosen.model.id;
  out(`agentforge demo — model ${label}${chosen.source === 'ollama' ? ' (local Ollama)' : ''}`);
  if (chosen.source === 'demo') {
    out(
      '  No model configured (AGENTFORGE_MODEL / --model) and no local Ollama answered: the OFFLINE DEMO MODEL',
    );
    out('  drives the loop. It picks tools by matching words of the task; it is not an LLM.');
  }
  const httpServers: ChildProcess[] = [];
  let host: McpHost | undefined;
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const terminal = interactive ? new Terminal(process.stdin, process.stderr) : undefined;
  try {
    out('\n[connect] starting the example servers and connecting to all of them at once');
    const orders = await startHttpExample('customer-service/orders.mjs', httpServers);
    const refunds = await startHttpExample('customer-service/refunds.mjs', httpServers);
    const config = parseConfig(demoConfig(orders, refunds), { source: 'demo config' });
    host = await McpHost.start(config, {
      logger: stderrLogger(values.verbose),
      connectTimeoutMs: 15_000,
      ...(signal ? { signal } : {}),
    });
    out('[discover] handshake or server/discover, then tools/list, done:');
    for (const line of describeServers(host)) out(`  ${line}`);
    out('[registry] the tools the model sees (llmName -> server / MCP tool name):');
    for (const line of describeRegistry(host)) out(`  ${line}`);
    const task = values.task ?? DEMO_TASK;
    out(`\ntask: ${task}`);
    const agent = new Agent({
      model: chosen.model,
      host,
      system: 'You are a customer-service agent. Use the tools to answer; be brief.',
      approval: {
        policy: parseApprovalPolicy(values.approve),
        ...(terminal ? { approver: (request, signal) => terminal.approve(request, signal) } : {}),
      },
    });
    const result = await agent.run(task, {
      ...(signal ? { signal } : {}),
      onEvent: (event) => {
        const line = renderEvent(event, true);
        if (line) out(line);
      },
    });
    if (result.stopReason !== 'answer')
      out(`[answer] none: the run ended with ${result.stopReason} ${result.error?.message ?? ''}`);
    out('[close] closing: stdio servers get stdin closed (then SIGTERM, SIGKILL); HTTP servers stop');
    return result.stopReason === 'answer' ? 0 : 1;
  } finally {
    terminal?.close();
    await host?.close();
    for (const child of httpServers) child.kill('SIGTERM');
  }
}

function demoConfig(ordersUrl: string, refundsUrl: string) {
  const node = process.execPath;
  return {
    mcpServers: {
      weather: { command: node, args: [example('weather/server.mjs')], approval: 'auto' },
      orders: { url: ordersUrl, type: 'http', approval: 'auto', group: 'support' },
      logistics: {
        command: node,
        args: [example('customer-service/logistics.mjs')],
        approval: 'auto',
        group: 'support',
      },
      // Refunds move money: every call is asked about (and denied when no one is at the terminal).
      refunds: { url: refundsUrl, type: 'http', approval: 'ask', group: 'support' },
    },
  };
}

/** Spawns an HTTP example on an ephemeral port; it prints `{"url": ...}` on stdout once listening. */
async function startHttpExample(file: string, children: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, [example(file), '--http', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // Its own process group, tracked like a stdio server's, so no way of ending the demo leaves it running.
    detached: process.platform !== 'win32',
  });
  const pid = child.pid;
  if (pid !== undefined) {
    trackChild(pid);
    child.once('exit', () => untrackChild(pid));
  }
  children.push(child);
  return readUrl(child, file);
}

export function readUrl(child: ChildProcess, what: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const finish = (error: Error | undefined, url?: string) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout?.off('data', onData);
      child.stdout?.resume(); // keep draining, so later writes never block the child
      if (error) reject(error);
      else resolve(url!);
    };
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const line = buffer.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'));
      if (!line) return;
      try {
        finish(undefined, (JSON.parse(line) as { url: string }).url);
      } catch (error) {
        finish(error as Error);
      }
    };
    const onExit = (code: number | null) =>
      finish(new Error(`${what} exited (code ${code}) before listening`));
    const timer = setTimeout(
      () => finish(new Error(`${what} did not listen within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}
