/**
 * The tool loop: think (ask the model, with the registry's tools) -> the model's tool calls
 * run in parallel under a concurrency limit (act) -> their results go back as tool messages (observe) ->
 * again, until the model answers or `maxSteps` turns have passed. The registry refreshes between turns only.
 */
import { randomUUID } from 'node:crypto';
import { type ApprovalGateOptions, ApprovalGate } from './approval.js';
import { type AuditSink, auditMiddleware, safeUser } from './audit.js';
import {
  type AgentEvent,
  type RunResult,
  type RunStopReason,
  type ToolCallRecord,
  eventStream,
  lastAssistantText,
  turnStop,
} from './events.js';
import type { McpHost } from './host.js';
import {
  type AgentMiddleware,
  type ApprovalRecord,
  type ModelContext,
  type ModelMiddleware,
  type Next,
  type OutcomeSink,
  type ToolContext,
  type ToolMiddleware,
  type ToolOutcome,
  compose,
} from './middleware.js';
import type {
  ChatMessage,
  ChatModel,
  ModelRequest,
  ModelResponse,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  Usage,
} from './model.js';
import { RunSignals } from './run-signal.js';
import { isoAt, monotonicMs } from '../util/clock.js';
import { type ResultLimits, toolResultMessage } from './results.js';
import { TurnCall, TurnCalls } from './turn-calls.js';
import { type SamplingOptions, samplingHandler } from './sampling.js';
import { ProtocolFailure, type ToolExecution, executeTool, executeToolInto } from './tool-execution.js';
import { ToolSearch, type ToolSearchOptions } from './tool-search.js';
import type { AgentTracing } from './tracing.js';
import type { RegistryChange } from './registry.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The first turn's `registry` event when nothing was pending: the registry is as the host last left it. */
const NO_CHANGE: RegistryChange = Object.freeze({ added: [], removed: [], changed: [] });

export interface AgentOptions {
  readonly model: ChatModel;
  readonly host: McpHost;
  /** The system prompt; default none. */
  readonly system?: string;
  /** Model turns per run. Default 10. */
  readonly maxSteps?: number;
  /** Tool calls of one turn in flight at once. Default 4. */
  readonly concurrency?: number;
  readonly middleware?: readonly AgentMiddleware[];
  readonly approval?: ApprovalGateOptions | ApprovalGate;
  /** Where audit lines go (see `fileAuditSink`); `user` says on whose behalf. */
  readonly audit?: { readonly sink: AuditSink; readonly user?: string };
  readonly resultLimits?: ResultLimits;
  /** Throw when `tools/call` fails with a protocol error instead of telling the model. Default false. */
  readonly throwOnProtocolError?: boolean;
  /** Use the model's streaming API (tokens reach `text_delta` events). Default true. */
  readonly stream?: boolean;
  readonly toolChoice?: ToolChoice;
  readonly maxTokens?: number;
  readonly temperature?: number;
  /**
   * Let servers sample this agent's model (`sampling/createMessage`), each request approved by `approve`.
   * Start the host with `offerSampling: true` so the capability is declared to servers.
   */
  readonly sampling?: SamplingOptions;
  /**
   * With many tools, offer `search_tools` and load what it finds instead of every definition (see
   * tool-search.ts; default `{ enabled: 'auto' }`); `false` always offers every tool.
   */
  readonly toolSearch?: ToolSearchOptions | false;
  /** Spans of runs, model turns and tool calls (agentforge/otel's `agentTracing()`); default none. */
  readonly tracing?: AgentTracing;
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: AgentEvent) => void;
  /** Activate only these groups (plus ungrouped servers). Default: every server. */
  readonly groups?: readonly string[];
  /** Earlier messages of the conversation (a chat passes the previous `result.messages`). */
  readonly history?: readonly ChatMessage[];
  readonly maxSteps?: number;
}

interface RunState {
  readonly runId: string;
  /** Date.now() at the run's start. */
  readonly started: number;
  /** performance.now() at the same moment: a call's start is `started` plus the monotonic time since. */
  readonly startedMono: number;
  step: number;
  readonly signal: AbortSignal;
  /** The caller's listener; absent, no event is even built (`emit?.(...)` skips its argument). */
  readonly emit: ((event: AgentEvent) => void) | undefined;
  readonly messages: ChatMessage[];
  readonly records: ToolCallRecord[];
  /** The groups this run activated (undefined: every server). */
  readonly groups: readonly string[] | undefined;
  usage: { inputTokens: number; outputTokens: number };
  /** Tools `search_tools` found in this run (or called earlier in the conversation), offered in that order. */
  readonly loaded: Set<string>;
}

export class Agent {
  readonly gate: ApprovalGate;
  /** Undefined without model middleware: the turn is `#modelTurn` itself. */
  readonly #callModel: Next<ModelContext, ModelResponse> | undefined;
  /** Undefined without tool middleware: calls go through `gate.passTo` to `#toolEnd`. */
  readonly #callTool: Next<ToolContext, ToolOutcome> | undefined;
  readonly #toolEnd: (context: ToolContext, approval: ApprovalRecord | undefined, sink: OutcomeSink) => void;
  /** Each running run's event sink, by runId, when someone listens (only then is progress asked for). */
  readonly #emitters = new Map<string, (event: AgentEvent) => void>();
  readonly #toolSearch: ToolSearch | undefined;
  /** Each running run's loaded tools, by runId, for `search_tools` at the pipeline's end. */
  readonly #loadedByRun = new Map<string, Set<string>>();
  /** The signals of runs started without one. */
  readonly #runSignals = new RunSignals();

  readonly #options: AgentOptions;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.gate =
      options.approval instanceof ApprovalGate
        ? options.approval
        : new ApprovalGate(this.#gateOptions(options.approval));
    const middleware = options.middleware ?? [];
    const { tracing } = options;
    const modelLayers = middleware.flatMap((m) => (m.model ? [m.model] : [])) as ModelMiddleware[];
    if (tracing?.chat) modelLayers.unshift(tracing.chat(options.model.id));
    const toolLayers: ToolMiddleware[] = tracing?.tool ? [tracing.tool] : [];
    if (options.audit) {
      const user = options.audit.user ?? safeUser();
      toolLayers.push(auditMiddleware(options.audit.sink, { user, model: options.model.id }));
    }
    toolLayers.push(...middleware.flatMap((m) => (m.tool ? [m.tool] : [])));
    this.#toolSearch = options.toolSearch === false ? undefined : new ToolSearch(options.toolSearch);
    const execution: ToolExecution = {
      host: options.host,
      gate: this.gate,
      toolSearch: this.#toolSearch,
      loadedTools: (runId) => this.#loadedByRun.get(runId),
      emitter: (runId) => (this.#emitters.size === 0 ? undefined : this.#emitters.get(runId)),
      throwOnProtocolError: options.throwOnProtocolError === true,
    };
    this.#callModel =
      modelLayers.length > 0 ? compose(modelLayers, (context) => this.#modelTurn(context)) : undefined;
    // The approval gate is the innermost layer: it sees arguments other middleware produced.
    const end = (context: ToolContext, approval?: ApprovalRecord) =>
      executeTool(context, execution, approval);
    this.#callTool =
      toolLayers.length > 0 ? compose(toolLayers, (context) => this.gate.pass(context, end)) : undefined;
    this.#toolEnd = (context, approval, sink) => executeToolInto(context, execution, approval, sink);
    if (options.sampling)
      options.host.setHandlers({ sampling: samplingHandler(options.model, options.sampling) });
  }

  /** Runs one task (or continues a conversation) to an answer. Never throws for tool or model failures. */
  run(input: string, options: RunOptions = {}): Promise<RunResult> {
    const { tracing, model } = this.#options;
    if (!tracing) return this.#runToEnd(input, options);
    return tracing.invokeAgent({ model: model.id, input }, () => this.#runToEnd(input, options));
  }

  async #runToEnd(input: string, options: RunOptions): Promise<RunResult> {
    const state = this.#startRun(input, options);
    if (options.onEvent) this.#emitters.set(state.runId, options.onEvent);
    this.#loadedByRun.set(state.runId, state.loaded);
    state.emit?.({ type: 'run_start', runId: state.runId, model: this.#options.model.id, input });
    let ending: RunEnding;
    try {
      ending = await this.#loop(state, options.maxSteps ?? this.#options.maxSteps ?? 10);
    } catch (caught) {
      if (this.#options.throwOnProtocolError && caught instanceof ProtocolFailure && !state.signal.aborted) {
        throw caught.cause;
      }
      const error = {
        name: (caught as Error)?.name ?? 'Error',
        message: (caught as Error)?.message ?? String(caught),
      };
      ending = state.signal.aborted ? { stopReason: 'cancelled' } : { stopReason: 'error', error };
    } finally {
      this.#emitters.delete(state.runId);
      this.#loadedByRun.delete(state.runId);
    }
    const answer = ending.answer ?? lastAssistantText(state.messages);
    if (ending.stopReason === 'answer') state.emit?.({ type: 'answer', text: answer });
    const result: RunResult = {
      runId: state.runId,
      model: this.#options.model.id,
      answer,
      stopReason: ending.stopReason,
      steps: state.step,
      messages: state.messages,
      toolCalls: state.records,
      usage: state.usage,
      startedAt: isoAt(state.started),
      durationMs: Date.now() - state.started,
      ...(ending.error ? { error: ending.error } : {}),
    };
    state.emit?.({ type: 'done', result });
    return result;
  }

  #startRun(input: string, options: RunOptions): RunState {
    const { history } = options;
    const messages: ChatMessage[] = history ? [...history] : [];
    if (this.#options.system && !messages.some((m) => m.role === 'system')) {
      messages.unshift({ role: 'system', content: this.#options.system });
    }
    messages.push({ role: 'user', content: input });
    return {
      runId: randomUUID(),
      started: Date.now(),
      startedMono: monotonicMs(),
      step: 0,
      signal: options.signal ?? this.#runSignals.take(),
      emit: options.onEvent,
      messages,
      records: [],
      groups: options.groups,
      usage: { inputTokens: 0, outputTokens: 0 },
      loaded: history
        ? new Set(history.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.name) : [])))
        : new Set(),
    };
  }

  /** Think, act, observe, until an answer or `maxSteps` turns. */
  async #loop(state: RunState, maxSteps: number): Promise<RunEnding> {
    while (state.step < maxSteps) {
      const step = ++state.step;
      const thinking = this.#think(state, step);
      const context = thinking instanceof Promise ? await thinking : thinking;
      let response: ModelResponse | undefined;
      if (this.#callModel) response = await this.#callModel(context);
      else if (this.#options.stream === false) response = await this.#options.model.generate(context.request);
      else {
        // Without model middleware the stream is read in this frame: no promise of a function per turn.
        for await (const event of this.#options.model.stream(context.request)) {
          if (event.type === 'text_delta') state.emit?.({ type: 'text_delta', step, text: event.text });
          else if (event.type === 'done') response = event.response;
        }
        if (!response) throw new Error(`${this.#options.model.id}: stream ended without a response`);
      }
      this.#took(state, step, response);
      if (response.message.toolCalls.length === 0) {
        return { stopReason: turnStop(response), answer: response.message.content };
      }
      await this.#act(state, step, response.message.toolCalls);
      if (state.signal.aborted) throw state.signal.reason;
    }
    return { stopReason: 'max_steps' };
  }

  /** The same run as an event stream; the last event is `done` with the result. */
  stream(input: string, options: Omit<RunOptions, 'onEvent'> = {}): AsyncGenerator<AgentEvent> {
    return eventStream((onEvent) => this.run(input, { ...options, onEvent }));
  }

  /**
   * Think, up to the model: refresh the registry (between turns only), announce the turn, build its request. A
   * promise only when a server is restarting or the registry has changes to apply.
   */
  #think(state: RunState, step: number): ModelContext | Promise<ModelContext> {
    const { host } = this.#options;
    // A server restarting after its connection was closed is waited for: its tools come back for this turn.
    const restarting = host.reconnected(state.signal);
    if (restarting) return restarting.then(() => this.#refreshed(state, step));
    return this.#refreshed(state, step);
  }

  #refreshed(state: RunState, step: number): ModelContext | Promise<ModelContext> {
    const { host } = this.#options;
    if (!host.refreshPending) return this.#modelStep(state, step, undefined);
    return host.refresh(state.signal).then((change) => this.#modelStep(state, step, change));
  }

  #modelStep(state: RunState, step: number, change: RegistryChange | undefined): ModelContext {
    // A tool changed since its approval is offered as approved until someone approves the change.
    const all = this.gate.offered(this.#options.host.registry, state.groups);
    const tools = this.#toolSearch?.active(all) ? this.#toolSearch.offered(all, state.loaded) : all;
    if (step === 1 || (change && change.added.length + change.removed.length + change.changed.length > 0)) {
      state.emit?.({ type: 'registry', step, tools: tools.map((t) => t.name), change: change ?? NO_CHANGE });
    }
    state.emit?.({ type: 'model_start', step });
    return { runId: state.runId, step, request: this.#request(state, tools) };
  }

  /** The turn's response joins the run: its message, its usage, `model_end`. */
  #took(state: RunState, step: number, response: ModelResponse): void {
    state.messages.push(response.message);
    if (response.usage) {
      state.usage.inputTokens += response.usage.inputTokens;
      state.usage.outputTokens += response.usage.outputTokens;
    }
    state.emit?.({ type: 'model_end', step, response });
  }

  /** The model request of a turn: a snapshot of the messages, the tools offered, the run's signal and options. */
  #request(state: RunState, tools: readonly ToolDefinition[]): ModelRequest {
    const { toolChoice, maxTokens, temperature } = this.#options;
    const request: Mutable<ModelRequest> = { messages: state.messages.slice() };
    if (tools.length > 0) {
      request.tools = tools;
      request.toolChoice = toolChoice ?? 'auto';
    }
    request.signal = state.signal;
    if (maxTokens !== undefined) request.maxTokens = maxTokens;
    if (temperature !== undefined) request.temperature = temperature;
    return request;
  }

  /**
   * One model turn at the end of the model middleware: the stream read to its `done` (deltas to listeners), or
   * `generate` with streaming off. Without middleware `#loop` reads the turn itself, the same way.
   */
  async #modelTurn(context: ModelContext): Promise<ModelResponse> {
    const { model } = this.#options;
    if (this.#options.stream === false) return model.generate(context.request);
    const emit = this.#emitters.get(context.runId);
    let response: ModelResponse | undefined;
    for await (const event of model.stream(context.request)) {
      if (event.type === 'text_delta') emit?.({ type: 'text_delta', step: context.step, text: event.text });
      else if (event.type === 'done') response = event.response;
    }
    if (!response) throw new Error(`${model.id}: stream ended without a response`);
    return response;
  }

  /**
   * The gate's options: each server's `approval` key from the host's config unless given, and the approver
   * wrapped so UIs see an `approval_request` event before the question is asked.
   */
  #gateOptions(options: ApprovalGateOptions = {}): ApprovalGateOptions {
    const servers =
      options.servers ?? new Map(this.#options.host.config.servers.map((s) => [s.name, s.approval]));
    const approver = options.approver;
    if (!approver) return { ...options, servers };
    return {
      ...options,
      servers,
      approver: (request, signal) => {
        this.#emitters.get(request.runId)?.({ type: 'approval_request', request });
        return approver(request, signal);
      },
    };
  }

  /** Act: every call of the turn through the tool pipeline, results appended in the calls' order. */
  #act(state: RunState, step: number, calls: readonly ToolCall[]): Promise<void> {
    const turn = new TurnCalls(
      calls.length,
      this.#options.concurrency ?? 4,
      (index, turn) => this.#runCall(state, step, calls[index]!, index, turn),
      (records) => {
        for (const record of records) {
          state.records.push(record);
          state.messages.push(toolResultMessage(record, this.#options.resultLimits));
        }
      },
    );
    return turn.run();
  }

  /**
   * One call through the tool pipeline; its record goes to the turn from the call's own reaction. Without tool
   * middleware the pipeline is the gate and executeTool, which hand the outcome on themselves (passTo).
   */
  #runCall(state: RunState, step: number, call: ToolCall, index: number, turn: TurnCalls): void {
    // A tool of a group this run did not activate is as unknown as one that does not exist.
    const { runId, signal, groups } = state;
    const tool = this.#options.host.registry.get(call.name, groups);
    state.emit?.({
      type: 'tool_call',
      step,
      call,
      server: tool?.server ?? null,
      mcpName: tool?.mcpName ?? null,
    });
    // One clock read per call start: the wall-clock time is the run's start plus the monotonic time since (the
    // run's records stay on one timeline even if the system clock is stepped while it runs).
    const started = monotonicMs();
    const startedAt = isoAt(Math.floor(state.started + (started - state.startedMono)));
    const run = new TurnCall(turn, index, call, step, tool, state.emit, startedAt, started);
    // Literals of their own rather than a conditional spread: no throwaway object per call.
    const context: ToolContext =
      groups === undefined
        ? { runId, step, call, tool, arguments: call.arguments, signal }
        : { runId, step, call, tool, arguments: call.arguments, signal, groups };
    if (this.#callTool) this.#callTool(context).then((outcome) => run.outcome(outcome), turn.fail);
    else this.gate.passTo(context, this.#toolEnd, run);
  }
}

interface RunEnding {
  readonly stopReason: RunStopReason;
  /** Undefined: the last text the model produced. */
  readonly answer?: string;
  readonly error?: RunResult['error'];
}

export type { Usage };
