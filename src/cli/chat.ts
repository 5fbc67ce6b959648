/** `agentforge chat`: an interactive conversation; tokens stream, tool calls show, approval is asked. */
import { parseArgs } from 'node:util';
import { Agent } from '../agent/agent.js';
import { parseApprovalPolicy } from '../agent/approval.js';
import { fileAuditSink } from '../agent/audit.js';
import type { ChatMessage } from '../agent/model.js';
import { loadHostConfig } from './discover.js';
import { Activity, activityMode } from './activity.js';
import { describeRegistry, describeServers, renderEvent } from './render.js';
import { RunView } from './run-view.js';
import type { LoggingLevel } from '../mcp/types.js';
import { openAgentHost } from './agent-host.js';
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

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  model: { type: 'string', short: 'm' },
  approve: { type: 'string' },
  group: { type: 'string', multiple: true },
  audit: { type: 'string' },
  system: { type: 'string' },
  'log-level': { type: 'string' },
  quiet: { type: 'boolean', short: 'q', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export async function chatCommand(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const chosen = await chooseModel(values.model);
  if (!chosen) throw new UsageError(NO_MODEL_MESSAGE);
  // Before the Terminal exists: VS Code `${input:...}` questions read the terminal themselves.
  const config = await loadHostConfig(values.config, signal);
  const logLevel = parseLogLevel(values['log-level']);
  const screen = chatScreen(values.quiet, logLevel);
  const { activity, view, terminal } = screen;
  const host = await openAgentHost(config, screen, { verbose: values.verbose, logLevel }, signal);
  try {
    requireSomeServer(host);
    warnUnmatched(host, values.approve, values.group);
    const agent = new Agent({
      model: chosen.model,
      host,
      ...agentTracingOption(),
      ...(values.system ? { system: values.system } : {}),
      approval: {
        policy: parseApprovalPolicy(values.approve),
        approver: (request, signal) => terminal.approve(request, signal),
      },
      ...(values.audit ? { audit: { sink: fileAuditSink(values.audit) } } : {}),
      sampling: { approve: (server, params, signal) => terminal.approveSampling(server, params, signal) },
    });
    terminal.write(`model ${chosen.model.id}\n${describeServers(host).join('\n')}\n`);
    terminal.write('type a message; /tools lists tools, /reset forgets the conversation, /exit quits\n');
    let history: readonly ChatMessage[] = [];
    for (;;) {
      // The prompt is a question too: what servers say meanwhile waits until the line is sent.
      const line = await activity.dialogue(() => terminal.question('\n> ', signal));
      if (line === undefined || line.trim() === '/exit') return signal.aborted ? 1 : 0;
      const input = line.trim();
      if (input === '') continue;
      if (input === '/tools') {
        terminal.write(`${describeRegistry(host).join('\n')}\n`);
        continue;
      }
      if (input === '/reset') {
        history = [];
        continue;
      }
      history = await turn(agent, { terminal, view, activity }, input, history, values.group, signal);
    }
  } finally {
    activity.close();
    terminal.close();
    await host.close();
  }
}

/** The conversation (answers, tool lines, questions) is on stdout; spinners and progress on stderr. */
function chatScreen(quiet: boolean, logLevel: LoggingLevel | undefined): ChatScreen {
  const activity = new Activity({
    mode: activityMode(process.stderr, quiet),
    output: process.stdout,
    answers: process.stdout,
  });
  const view = new RunView(activity, {
    callLines: false,
    readyLines: false,
    streamAnswers: true,
    logLevel: logLevel ?? 'warning',
  });
  return { activity, view, terminal: new Terminal(process.stdin, process.stdout, activity) };
}

interface ChatScreen {
  readonly terminal: Terminal;
  readonly view: RunView;
  readonly activity: Activity;
}

async function turn(
  agent: Agent,
  screen: ChatScreen,
  input: string,
  history: readonly ChatMessage[],
  groups: string[] | undefined,
  signal: AbortSignal,
): Promise<readonly ChatMessage[]> {
  const result = await agent.run(input, {
    history,
    signal,
    ...(groups ? { groups } : {}),
    onEvent: (event) => {
      screen.view.onAgent(event);
      const line = renderEvent(event, false);
      if (line && event.type !== 'model_start') screen.activity.line(`  · ${line}`);
    },
  });
  if (result.stopReason !== 'answer' && !signal.aborted)
    screen.terminal.write(
      `(run ended: ${result.stopReason}${result.error ? `: ${result.error.message}` : ''})\n`,
    );
  return result.messages;
}
