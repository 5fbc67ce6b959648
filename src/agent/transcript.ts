/**
 * The JSON transcript of one run (`agentforge run --json`). Stable format, version 1:
 *
 * {
 *   "format": "agentforge.transcript", "version": 1,
 *   "runId": string, "model": "<provider>:<model>", "task": string,
 *   "answer": string,                 // the final answer ('' when none)
 *   "stopReason": "answer" | "max_steps" | "cancelled" | "max_tokens" | "refusal" | "error",
 *   "steps": number,                  // model turns
 *   "startedAt": ISO-8601, "durationMs": number,
 *   "usage": { "inputTokens": number, "outputTokens": number },
 *   "servers": [{ "name", "state", "protocolVersion"?, "era"?, "toolCount", "error"? }],
 *   "tools": [{ "llmName", "server", "mcpName" }],           // registry at the end of the run
 *   "messages": [                     // the conversation, provider-neutral
 *     { "role": "system" | "user", "content": string | [parts] }
 *     { "role": "assistant", "content": string, "toolCalls": [{ "id", "name", "arguments" }] }
 *     { "role": "tool", "toolCallId", "name", "content": string | [parts], "isError"? }
 *   ],
 *   "toolCalls": [{
 *     "id", "step", "llmName", "server" | null, "mcpName" | null, "arguments",
 *     "status": "ok" | "denied" | "unknown_tool" | "invalid_arguments" | "protocol_error" | "cancelled",
 *     "isError": boolean,             // the model received an error result
 *     "result": CallToolResult,       // as the server sent it (or the synthetic error result)
 *     "approval": { "decision": "approved" | "denied", "by": "policy" | "config" | "user" | "middleware" |
 *                   "non-interactive", "reason"? } | null,
 *     "error"?: { "message", "code"? },
 *     "timing": { "startedAt": ISO-8601, "durationMs": number }
 *   }],
 *   "error"?: { "name", "message" }   // when stopReason is "error"
 * }
 *
 * New fields may be added in version 1; existing ones keep their meaning. Image data in messages is kept.
 */
import type { RunResult } from './events.js';
import type { McpHost } from './host.js';

export const TRANSCRIPT_VERSION = 1;

export function toTranscript(result: RunResult, host: McpHost, task: string): Record<string, unknown> {
  return {
    format: 'agentforge.transcript',
    version: TRANSCRIPT_VERSION,
    runId: result.runId,
    model: result.model,
    task,
    answer: result.answer,
    stopReason: result.stopReason,
    steps: result.steps,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    usage: result.usage,
    servers: host.servers().map((s) => ({
      name: s.name,
      state: s.state,
      ...(s.protocolVersion === undefined ? {} : { protocolVersion: s.protocolVersion }),
      ...(s.era === undefined ? {} : { era: s.era }),
      toolCount: s.toolCount,
      ...(s.error === undefined ? {} : { error: s.error }),
    })),
    tools: host.registry.entries().map((t) => ({ llmName: t.llmName, server: t.server, mcpName: t.mcpName })),
    messages: result.messages,
    toolCalls: result.toolCalls.map((call) => ({
      id: call.id,
      step: call.step,
      llmName: call.llmName,
      server: call.server,
      mcpName: call.mcpName,
      arguments: call.arguments,
      status: call.status,
      isError: call.isError,
      result: call.result,
      approval: call.approval,
      ...(call.error ? { error: call.error } : {}),
      timing: { startedAt: call.startedAt, durationMs: call.durationMs },
    })),
    ...(result.error ? { error: result.error } : {}),
  };
}
