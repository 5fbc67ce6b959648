/**
 * What a running tool call tells the run while it is in flight: that it is sent (`tool_start`, only after the
 * approval gate let it through), the server's notifications/progress and, for a call the server runs as a
 * task (SEP-2663), each status. A server's values are checked and bounded before they reach a UI.
 */
import type { ToolCallOptions, ToolProgress } from './client-surface.js';
import type { AgentEvent } from './events.js';
import type { ToolContext } from './middleware.js';
import type { RegisteredTool } from './registry.js';
import { isInert } from './run-signal.js';

const NO_OPTIONS: ToolCallOptions = Object.freeze({});

/** Longest progress or status message passed on (a UI shows one line of it). */
const MAX_NOTE = 1_000;

/** The call's options for `McpHost.callTool`: its signal, and its progress and statuses as run events. */
export function watchCall(
  emit: ((event: AgentEvent) => void) | undefined,
  context: ToolContext,
  tool: RegisteredTool,
): ToolCallOptions {
  const { step } = context;
  const signal = isInert(context.signal) ? undefined : context.signal;
  if (!emit) return signal ? { signal } : NO_OPTIONS;
  const call = { step, callId: context.call.id, llmName: context.call.name };
  emit({ type: 'tool_start', ...call, server: tool.server, mcpName: tool.mcpName });
  return {
    ...(signal ? { signal } : {}),
    onprogress: (raw) => {
      const progress = readProgress(raw);
      if (progress) emit({ type: 'tool_progress', ...call, ...progress });
    },
    ontask: (update) =>
      emit({
        type: 'tool_task',
        ...call,
        taskId: String(update.taskId).slice(0, MAX_NOTE),
        status: update.status,
        ...(typeof update.statusMessage === 'string'
          ? { statusMessage: update.statusMessage.slice(0, MAX_NOTE) }
          : {}),
      }),
  };
}

/** notifications/progress params: `progress` (and `total`) numbers, `message` a string; anything else is dropped. */
export function readProgress(raw: ToolProgress): ToolProgress | undefined {
  const { progress, total, message } = raw as { progress?: unknown; total?: unknown; message?: unknown };
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  return {
    progress,
    ...(typeof total === 'number' && Number.isFinite(total) && total > 0 ? { total } : {}),
    ...(typeof message === 'string' ? { message: message.slice(0, MAX_NOTE) } : {}),
  };
}
