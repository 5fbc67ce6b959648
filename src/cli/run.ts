/** `agentforge run`: one task, the final answer on stdout (or the JSON transcript with --json). */
import { parseArgs } from 'node:util';
import { Agent } from '../agent/agent.js';
import { parseApprovalPolicy } from '../agent/approval.js';
import { fileAuditSink } from '../agent/audit.js';
import type { McpHost } from '../agent/host.js';
import type { ChatModel } from '../agent/model.js';
import { toTranscript } from '../agent/transcript.js';
import { renderEvent } from './render.js';
import { AGENT_STARTUP_MS, UsageError, chooseModel, openHost, stderrLogger } from './setup.js';
import { Terminal } from './terminal.js';

const RUN_OPTIONS = {
  config: { type: 'string', short: 'c' },
  model: { type: 'string', short: 'm' },
  approve: { type: 'string' },
  json: { type: 'boolean', default: false },
  'max-steps': { type: 'string' },
  group: { type: 'string', multiple: true },
  audit: { type: 'string' },
  system: { type: 'string' },
  'no-input': { type: 'boolean', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: true });
  const task = positionals.join(' ').trim();
  if (task === '') throw new UsageError('run needs a task: agentforge run --config mcp.json "<task>"');
  const chosen = await chooseModel(values.model);
  if (!chosen) throw new UsageError('no model: pass --model <provider>:<model> or set AGENTFORGE_MODEL');
  const interactive = !values['no-input'] && Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const terminal = interactive ? new Terminal(process.stdin, process.stderr) : undefined;
  const host = await openHost(values.config, {
    // A slow server joins at a later turn instead of holding up the run (tools/list waits for all).
    startupTimeoutMs: AGENT_STARTUP_MS,
    logger: stderrLogger(values.verbose),
    ...(terminal
      ? {
          handlers: { elicitation: (server, params, signal) => terminal.elicit(server, params, signal) },
          offerSampling: true,
        }
      : {}),
  });
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  try {
    const agent = buildAgent(values, chosen.model, host, terminal);
    const result = await agent.run(task, {
      signal: controller.signal,
      ...(values.group ? { groups: values.group } : {}),
      onEvent: (event) => {
        if (!values.verbose) return;
        const line = renderEvent(event, false);
        if (line) process.stderr.write(`${line}\n`);
      },
    });
    if (values.json) process.stdout.write(`${JSON.stringify(toTranscript(result, host, task), null, 2)}\n`);
    else process.stdout.write(`${result.answer}\n`);
    if (result.stopReason !== 'answer') {
      process.stderr.write(
        `run ended: ${result.stopReason}${result.error ? ` (${result.error.message})` : ''}\n`,
      );
      return 1;
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    terminal?.close();
    await host.close();
  }
}

type RunValues = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof RUN_OPTIONS; allowPositionals: true }>
>['values'];

function buildAgent(
  values: RunValues,
  model: ChatModel,
  host: McpHost,
  terminal: Terminal | undefined,
): Agent {
  return new Agent({
    model,
    host,
    ...(values.system ? { system: values.system } : {}),
    ...(values['max-steps'] ? { maxSteps: positiveInt(values['max-steps'], '--max-steps') } : {}),
    approval: {
      policy: parseApprovalPolicy(values.approve),
      ...(terminal ? { approver: (request, signal) => terminal.approve(request, signal) } : {}),
    },
    ...(values.audit ? { audit: { sink: fileAuditSink(values.audit) } } : {}),
    ...(terminal
      ? {
          sampling: { approve: (server, params, signal) => terminal.approveSampling(server, params, signal) },
        }
      : {}),
  });
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
  return n;
}
