/**
 * The end of the agent's tool pipeline, inside every middleware and the approval gate: the `tools/call` on the
 * tool's server, `search_tools` answered locally, or the reason a call cannot happen (an unknown tool,
 * arguments that are not a JSON object), each as an outcome the model reads.
 */
import type { ApprovalGate } from './approval.js';
import { watchCall } from './call-events.js';
import type { AgentEvent } from './events.js';
import type { McpHost } from './host.js';
import type { CallToolResult } from '../mcp/types.js';
import type { CallSink, ToolCallOptions } from './client-surface.js';
import type { ApprovalRecord, OutcomeSink, ToolContext, ToolOutcome } from './middleware.js';
import { failureOutcome } from './results.js';
import { SEARCH_TOOL_NAME, type ToolSearch } from './tool-search.js';

/** Carries a protocol error out of the pipeline when `throwOnProtocolError` is set. */
export class ProtocolFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('tool call failed');
  }
}

/** What the pipeline's end needs of the agent. */
export interface ToolExecution {
  readonly host: McpHost;
  readonly gate: ApprovalGate;
  readonly toolSearch: ToolSearch | undefined;
  /** The tools `search_tools` loaded in a running run, by its runId. */
  loadedTools(runId: string): Set<string> | undefined;
  /** The event sink of a running run, when someone listens (only then is progress asked for). */
  emitter(runId: string): ((event: AgentEvent) => void) | undefined;
  readonly throwOnProtocolError: boolean;
}

/**
 * The pipeline's end: the actual `tools/call` (or the reason it cannot happen). The outcome is built in the
 * call's own reaction (CallEnd), the hot path of every turn. `approval`, the gate's decision (ApprovalGate.pass),
 * goes into the outcome; `context.approval` when the gate ran as a middleware.
 */
export function executeTool(
  context: ToolContext,
  execution: ToolExecution,
  approval: ApprovalRecord | undefined = context.approval,
): Promise<ToolOutcome> {
  return (
    earlyOutcome(context, execution) ??
    new Promise((outcome, fail) => callInto(context, execution, approval, { outcome, fail }))
  );
}

/**
 * `executeTool` for a pipeline with no middleware to hand the outcome back to (ApprovalGate.passTo): the outcome,
 * or the failure the run rethrows, goes to `sink` from the call's own reaction, and nothing is chained after it.
 */
export function executeToolInto(
  context: ToolContext,
  execution: ToolExecution,
  approval: ApprovalRecord | undefined,
  sink: OutcomeSink,
): void {
  const early = earlyOutcome(context, execution);
  if (!early) {
    callInto(context, execution, approval, sink);
    return;
  }
  early.then(
    (outcome) => sink.outcome(outcome),
    (error: unknown) => sink.fail(error),
  );
}

/** The `tools/call` itself, its outcome to `sink`. */
function callInto(
  context: ToolContext,
  execution: ToolExecution,
  approval: ApprovalRecord | undefined,
  sink: OutcomeSink,
): void {
  const tool = context.tool!;
  const end = new CallEnd(context, execution, approval, sink);
  let options: ToolCallOptions;
  try {
    options = watchCall(execution.emitter(context.runId), context, tool);
  } catch (error) {
    // A listener that threw on `tool_start` fails the call as a failed call, as a rejection would.
    Promise.reject(error).catch((failure: unknown) => end.failed(failure));
    return;
  }
  execution.host.callToolInto(tool, context.arguments, options, end);
}

/** Where a call's answer or failure becomes its outcome for `sink`: one object per call, no closures. */
class CallEnd implements CallSink {
  readonly #context: ToolContext;
  readonly #execution: ToolExecution;
  readonly #approval: ApprovalRecord | undefined;
  readonly #sink: OutcomeSink;

  constructor(
    context: ToolContext,
    execution: ToolExecution,
    approval: ApprovalRecord | undefined,
    sink: OutcomeSink,
  ) {
    this.#context = context;
    this.#execution = execution;
    this.#approval = approval;
    this.#sink = sink;
  }

  answered(result: CallToolResult): void {
    this.#sink.outcome(answeredOutcome(result, this.#context.arguments, this.#approval));
  }

  /** A failure the model reads, or, under throwOnProtocolError, the ProtocolFailure the run rethrows. */
  failed(error: unknown): void {
    let outcome: ToolOutcome;
    try {
      outcome = failedOutcome(error, this.#context, this.#execution, this.#approval);
    } catch (failure) {
      this.#sink.fail(failure);
      return;
    }
    this.#sink.outcome(outcome);
  }
}

/** The outcome of a call that cannot reach a server: `search_tools`, an unknown tool, unusable arguments. */
function earlyOutcome(context: ToolContext, execution: ToolExecution): Promise<ToolOutcome> | undefined {
  const { call, tool } = context;
  if (!tool && call.name === SEARCH_TOOL_NAME && execution.toolSearch)
    return searchTools(context, execution.toolSearch, execution);
  if (!tool) {
    const known = execution.host.registry.definitions(context.groups).map((t) => t.name);
    const text = `Unknown tool "${call.name}". Available tools: ${known.join(', ') || '(none)'}.`;
    return Promise.resolve({
      status: 'unknown_tool',
      result: { content: [{ type: 'text', text }], isError: true },
      error: { message: text },
    });
  }
  if (call.invalidArguments) {
    const text = `Invalid arguments for ${call.name}: ${call.invalidArguments.error}. Send a JSON object.`;
    return Promise.resolve({
      status: 'invalid_arguments',
      result: { content: [{ type: 'text', text }], isError: true },
      error: { message: text },
    });
  }
  return undefined;
}

function answeredOutcome(
  result: CallToolResult,
  args: Record<string, unknown>,
  approval: ApprovalRecord | undefined,
): ToolOutcome {
  return approval
    ? { status: 'ok', result, arguments: args, approval }
    : { status: 'ok', result, arguments: args };
}

/** The outcome of a call that failed before the tool answered; throws ProtocolFailure with throwOnProtocolError. */
function failedOutcome(
  error: unknown,
  context: ToolContext,
  execution: ToolExecution,
  approval: ApprovalRecord | undefined,
): ToolOutcome {
  const tool = context.tool!;
  const aborted = context.signal.aborted;
  if (execution.throwOnProtocolError && !aborted) throw new ProtocolFailure(error);
  const failure = {
    ...failureOutcome(error, tool.server, tool.mcpName, aborted),
    arguments: context.arguments,
  };
  return approval ? { ...failure, approval } : failure;
}

/** `search_tools`, answered here: the tools found join the run's loaded tools for its next steps. */
async function searchTools(
  context: ToolContext,
  toolSearch: ToolSearch,
  execution: ToolExecution,
): Promise<ToolOutcome> {
  const definitions = execution.gate.offered(execution.host.registry, context.groups);
  const loaded = execution.loadedTools(context.runId) ?? new Set<string>();
  const { text, isError } = await toolSearch.search(definitions, context.arguments, loaded, context.signal);
  return {
    status: 'ok',
    result: { content: [{ type: 'text', text }], isError },
    arguments: context.arguments,
  };
}
