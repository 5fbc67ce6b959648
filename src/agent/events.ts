/**
 * What a run produces: events for UIs while it runs, and a `RunResult` at the end. The result's shape is
 * the `agentforge run --json` transcript (documented in docs of `toTranscript`), so both stay in step.
 */
import type { CallToolResult } from '../mcp/types.js';
import type { ApprovalRequest } from './approval.js';
import type { TaskUpdate } from './client-surface.js';
import type { ChatMessage, ModelResponse, ToolCall, Usage } from './model.js';
import type { ApprovalRecord, ToolOutcome, ToolStatus } from './middleware.js';
import type { RegisteredTool, RegistryChange } from './registry.js';

/** One tool call of a run, as the transcript records it. */
export interface ToolCallRecord {
  /** The model's call id (tool results correlate by it). */
  readonly id: string;
  readonly step: number;
  readonly llmName: string;
  /** Null when the model named a tool that does not exist. */
  readonly server: string | null;
  readonly mcpName: string | null;
  /** The arguments sent to the server (after middleware); the model's own when no call was made. */
  readonly arguments: Record<string, unknown>;
  readonly status: ToolStatus;
  /** True when the model received an error result (server `isError`, denial, failure). */
  readonly isError: boolean;
  /** The server's result, or the synthetic one the model saw instead. */
  readonly result: CallToolResult;
  readonly approval: ApprovalRecord | null;
  readonly error?: { readonly message: string; readonly code?: number | string };
  readonly startedAt: string;
  readonly durationMs: number;
}

/** The record of a finished call: one literal, `error` added only to a failed call's. */
export function callRecord(
  call: ToolCall,
  step: number,
  tool: RegisteredTool | undefined,
  outcome: ToolOutcome,
  startedAt: string,
  elapsedMs: number,
): ToolCallRecord {
  const record: { -readonly [K in keyof ToolCallRecord]: ToolCallRecord[K] } = {
    id: call.id,
    step,
    llmName: call.name,
    server: tool?.server ?? null,
    mcpName: tool?.mcpName ?? null,
    arguments: outcome.arguments ?? call.arguments,
    status: outcome.status,
    isError: outcome.result.isError === true,
    result: outcome.result,
    approval: outcome.approval ?? null,
    startedAt,
    durationMs: Math.round(elapsedMs),
  };
  if (outcome.error) record.error = outcome.error;
  return record;
}

/**
 * Why the run ended: `answer` (the model answered), `max_steps`, `cancelled` (the signal aborted),
 * `max_tokens` / `refusal` (the model stopped without an answer), `error` (the model failed).
 */
export type RunStopReason = 'answer' | 'max_steps' | 'cancelled' | 'max_tokens' | 'refusal' | 'error';

export interface RunResult {
  readonly runId: string;
  readonly model: string;
  readonly answer: string;
  readonly stopReason: RunStopReason;
  /** Model turns taken. */
  readonly steps: number;
  /** The whole conversation, including the system prompt and earlier history. */
  readonly messages: readonly ChatMessage[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly usage: Usage;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly error?: { readonly message: string; readonly name: string };
}

export type AgentEvent =
  | { readonly type: 'run_start'; readonly runId: string; readonly model: string; readonly input: string }
  | {
      readonly type: 'registry';
      readonly step: number;
      readonly tools: readonly string[];
      readonly change?: RegistryChange;
    }
  | { readonly type: 'model_start'; readonly step: number }
  | { readonly type: 'text_delta'; readonly step: number; readonly text: string }
  | { readonly type: 'model_end'; readonly step: number; readonly response: ModelResponse }
  | {
      readonly type: 'tool_call';
      readonly step: number;
      readonly call: ToolCall;
      readonly server: string | null;
      readonly mcpName: string | null;
    }
  | { readonly type: 'approval_request'; readonly request: ApprovalRequest }
  /** The call passed the pipeline (approval included) and its tools/call is sent now. */
  | {
      readonly type: 'tool_start';
      readonly step: number;
      readonly callId: string;
      readonly llmName: string;
      readonly server: string;
      readonly mcpName: string;
    }
  /** A notifications/progress the server sent for a running call (basic/utilities/progress). */
  | {
      readonly type: 'tool_progress';
      readonly step: number;
      readonly callId: string;
      readonly llmName: string;
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
    }
  /** A status of a call the server runs as a task (SEP-2663). */
  | {
      readonly type: 'tool_task';
      readonly step: number;
      readonly callId: string;
      readonly llmName: string;
      readonly taskId: string;
      readonly status: TaskUpdate['status'];
      readonly statusMessage?: string;
    }
  | { readonly type: 'tool_result'; readonly record: ToolCallRecord }
  | { readonly type: 'answer'; readonly text: string }
  | { readonly type: 'done'; readonly result: RunResult };

/** Turns a callback-driven producer into an async iterable of its events (for `for await` UIs). */
export async function* eventStream<E>(
  produce: (onEvent: (event: E) => void) => Promise<unknown>,
): AsyncGenerator<E> {
  const queue: E[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const running = produce((event) => {
    queue.push(event);
    wake?.();
  }).finally(() => {
    finished = true;
    wake?.();
  });
  for (;;) {
    const event = queue.shift();
    if (event !== undefined) {
      yield event;
      continue;
    }
    if (finished) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  await running;
}

/** Why a turn without tool calls ended the run. */
export function turnStop(response: ModelResponse): RunStopReason {
  if (response.stopReason === 'max_tokens') return 'max_tokens';
  if (response.stopReason === 'refusal') return 'refusal';
  return 'answer';
}

/** The last non-empty text the model produced: the answer of a run that ended otherwise. */
export function lastAssistantText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'assistant' && message.content !== '') return message.content;
  }
  return '';
}
