/**
 * The agent's two pipelines, model calls and tool calls, as middleware on `compose` (src/util/compose.ts).
 */
import type { CallToolResult } from '../mcp/types.js';
import type { ModelRequest, ModelResponse, ToolCall } from './model.js';
import type { Middleware } from '../util/compose.js';
import type { RegisteredTool } from './registry.js';

export { compose, type Middleware, type Next } from '../util/compose.js';

// ---------------------------------------------------------------------------------------------------------
// The agent's two pipelines

export interface ModelContext {
  readonly runId: string;
  readonly step: number;
  readonly request: ModelRequest;
}

export type ApprovalDecision = 'approved' | 'denied';
/** Who decided: a policy (`--approve`, config), a person, a middleware, or nobody was there to ask. */
export type ApprovalSource = 'policy' | 'config' | 'user' | 'middleware' | 'non-interactive';

export interface ApprovalRecord {
  readonly decision: ApprovalDecision;
  readonly by: ApprovalSource;
  readonly reason?: string;
}

export interface ToolContext {
  readonly runId: string;
  readonly step: number;
  /** The call as the model produced it (id and llmName). */
  readonly call: ToolCall;
  /** Undefined when the model named a tool the registry does not have. */
  readonly tool: RegisteredTool | undefined;
  /** The arguments that will be sent; a middleware may replace them. */
  readonly arguments: Record<string, unknown>;
  readonly signal: AbortSignal;
  /** The groups the run activated (undefined: every server). */
  readonly groups?: readonly string[];
  /** Set once the approval gate has decided. */
  readonly approval?: ApprovalRecord;
}

/**
 * How a call ended: `ok` (the server answered, maybe with `isError`), `denied`, `unknown_tool`,
 * `invalid_arguments`, `protocol_error` (a JSON-RPC error or a transport failure), `cancelled`.
 */
export type ToolStatus =
  | 'ok'
  | 'denied'
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'protocol_error'
  | 'cancelled';

export interface ToolOutcome {
  readonly status: ToolStatus;
  /** The server's result (status `ok`), or a synthetic one explaining the failure to the model. */
  readonly result: CallToolResult;
  readonly approval?: ApprovalRecord;
  /** The arguments the server received (after middleware), when the call was made. */
  readonly arguments?: Record<string, unknown>;
  /** The failure behind a non-`ok` status. */
  readonly error?: { readonly message: string; readonly code?: number | string };
}

/**
 * Where a call's outcome goes when the pipeline's end hands it on itself instead of resolving a promise with it
 * (a pipeline without middleware). Neither method throws.
 */
export interface OutcomeSink {
  outcome(outcome: ToolOutcome): void;
  /** A failure that fails the run (a protocol error under `throwOnProtocolError`, a listener that threw). */
  fail(error: unknown): void;
}

export type ModelMiddleware = Middleware<ModelContext, ModelResponse>;
export type ToolMiddleware = Middleware<ToolContext, ToolOutcome>;

export interface AgentMiddleware {
  readonly model?: ModelMiddleware;
  readonly tool?: ToolMiddleware;
}

/** A before-hook: return a new context to modify the call, an outcome to short-circuit it, or nothing. */
export function beforeTool(
  hook: (
    context: ToolContext,
  ) => ToolContext | ToolOutcome | undefined | Promise<ToolContext | ToolOutcome | undefined>,
): AgentMiddleware {
  return {
    tool: async (context, next) => {
      const value = await hook(context);
      if (value && 'status' in value) return value;
      return next(value ?? context);
    },
  };
}

/** An after-hook: may replace the outcome (redact, annotate). */
export function afterTool(
  hook: (
    context: ToolContext,
    outcome: ToolOutcome,
  ) => ToolOutcome | undefined | Promise<ToolOutcome | undefined>,
): AgentMiddleware {
  return {
    tool: async (context, next) => {
      const outcome = await next(context);
      return (await hook(context, outcome)) ?? outcome;
    },
  };
}

export function beforeModel(
  hook: (context: ModelContext) => ModelContext | undefined | Promise<ModelContext | undefined>,
): AgentMiddleware {
  return { model: async (context, next) => next((await hook(context)) ?? context) };
}

export function afterModel(
  hook: (
    context: ModelContext,
    response: ModelResponse,
  ) => ModelResponse | undefined | Promise<ModelResponse | undefined>,
): AgentMiddleware {
  return {
    model: async (context, next) => {
      const response = await next(context);
      return (await hook(context, response)) ?? response;
    },
  };
}

/** A denial the model can read: an error result, so it may try something else or answer without the tool. */
export function deniedOutcome(reason: string, approval: ApprovalRecord): ToolOutcome {
  return {
    status: 'denied',
    result: { content: [{ type: 'text', text: `Tool call denied: ${reason}` }], isError: true },
    approval,
    error: { message: reason },
  };
}
