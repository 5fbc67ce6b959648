/** `agentforge run`: one task, the final answer on stdout (or the JSON transcript with --json). */
import { parseArgs } from 'node:util';
import { Agent } from '../agent/agent.js';
import { parseApprovalPolicy } from '../agent/approval.js';
import { fileAuditSink } from '../agent/audit.js';
import type { McpHost } from '../agent/host.js';
import type { ChatModel } from '../agent/model.js';
import { toTranscript } from '../agent/transcript.js';
import type { RunResult } from '../agent/events.js';
import { loadHostConfig } from './discover.js';
import { EXIT } from './errors.js';
import { Activity, activityMode } from './activity.js';
import { renderEvent } from './render.js';
import { RunView } from './run-view.js';
import type { LoggingLevel } from '../mcp/types.js';
import { type AgentScreen, openAgentHost } from './agent-host.js';
import {
  NO_MODEL_MESSAGE,
  UsageError,
  chooseModel,
  parseLogLevel,
  requireSomeServer,
  warnUnmatched,
} from './setup.js';
import { agentTracingOption } from './telemetry.js';
import { Terminal } from './terminal.js';

export const RUN_OPTIONS = {
  config: { type: 'string', short: 'c' },
  model: { type: 'string', short: 'm' },
  approve: { type: 'string' },
  json: { type: 'boolean', default: false },
  'max-steps': { type: 'string' },
  group: { type: 'string', multiple: true },
  audit: { type: 'string' },
  system: { type: 'string' },
  'no-input': { type: 'boolean', default: false },
  'log-level': { type: 'string' },
  quiet: { type: 'boolean', short: 'q', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export async function runCommand(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: true });
  const task = positionals.join(' ').trim();
  if (task === '') throw new UsageError('run needs a task: agentforge run --config mcp.json "<task>"');
  const chosen = await chooseModel(values.model);
  if (!chosen) throw new UsageError(NO_MODEL_MESSAGE);
  const maxSteps = values['max-steps'] ? positiveInt(values['max-steps'], '--max-steps') : undefined;
  // Before the Terminal exists: VS Code `${input:...}` questions read the terminal themselves.
  const config = await loadHostConfig(values.config, signal);
  const logLevel = parseLogLevel(values['log-level']);
  const screen = runScreen(values, logLevel);
  const { activity, view, terminal } = screen;
  const host = await openAgentHost(config, screen, { verbose: values.verbose, logLevel }, signal);
  try {
    requireSomeServer(host);
    warnUnmatched(host, values.approve, values.group);
    const agent = buildAgent(values, chosen.model, host, terminal, maxSteps);
    const result = await agent.run(task, {
      signal,
      ...(values.group ? { groups: values.group } : {}),
      onEvent: (event) => {
        view.onAgent(event);
        if (!values.verbose) return;
        const line = renderEvent(event, false);
        if (line) activity.line(line);
      },
    });
    activity.close();
    // Interrupted: the signal handler said so; no partial answer on stdout.
    if (signal.aborted) return 1;
    if (values.json) process.stdout.write(`${JSON.stringify(toTranscript(result, host, task), null, 2)}\n`);
    else if ((result.answer !== '' || result.stopReason === 'answer') && !view.streamed(result.answer))
      process.stdout.write(`${result.answer}\n`);
    return runExitCode(result, maxSteps ?? 10);
  } finally {
    activity.close();
    terminal?.close();
    await host.close();
  }
}

type RunValues = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof RUN_OPTIONS; allowPositionals: true }>
>['values'];

/**
 * Progress on stderr (live on a terminal, plain lines otherwise, none with --quiet or with --json and no one
 * watching stderr); the answer streams onto stdout when that is a terminal; questions need both terminals.
 */
function runScreen(values: RunValues, logLevel: LoggingLevel | undefined): AgentScreen {
  const quiet = values.quiet || (values.json && !process.stderr.isTTY);
  const activity = new Activity({ mode: activityMode(process.stderr, quiet), output: process.stderr });
  const view = new RunView(activity, {
    callLines: !values.verbose,
    readyLines: true,
    streamAnswers: !values.json && process.stdout.isTTY === true,
    logLevel: logLevel ?? 'warning',
  });
  const interactive = !values['no-input'] && Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const terminal = interactive ? new Terminal(process.stdin, process.stderr, activity) : undefined;
  return { activity, view, terminal };
}

function buildAgent(
  values: RunValues,
  model: ChatModel,
  host: McpHost,
  terminal: Terminal | undefined,
  maxSteps: number | undefined,
): Agent {
  return new Agent({
    model,
    host,
    ...agentTracingOption(),
    ...(values.system ? { system: values.system } : {}),
    ...(maxSteps === undefined ? {} : { maxSteps }),
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

/**
 * How the run ended, for scripts (documented in `agentforge --help`): a model failure is 1, a run whose every
 * tool call was denied 3 (its answer is printed, but it did not do what was asked), `--max-steps` 4.
 */
export function runExitCode(result: RunResult, maxSteps: number): number {
  if (result.stopReason === 'max_steps') {
    process.stderr.write(`agentforge: the run hit --max-steps ${maxSteps} before the model answered\n`);
    return EXIT.maxSteps;
  }
  if (result.stopReason !== 'answer') {
    const why = result.error ? `: ${result.error.message.replace(/^agentforge:\s*/, '')}` : '';
    process.stderr.write(`agentforge: the run ended without an answer (${result.stopReason})${why}\n`);
    return EXIT.failure;
  }
  const calls = result.toolCalls;
  if (calls.length > 0 && calls.every((call) => call.status === 'denied')) {
    process.stderr.write(
      `agentforge: every tool call was denied (${calls.length}); --approve or the server's "approval" key allows them\n`,
    );
    return EXIT.allDenied;
  }
  return EXIT.ok;
}

export function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
  return n;
}
