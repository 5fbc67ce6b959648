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
 *     { "role": "assistant", "content": string,
 *       "toolCalls": [{ "id", "name", "arguments", "invalidArguments"?: { "raw", "error" }, "signature"? }] }
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
 * `TRANSCRIPT_SCHEMA` says the same as a JSON Schema (draft 2020-12), for consumers that validate.
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

const text = { type: 'string' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const nullableText = { type: ['string', 'null'] } as const;
const parts = {
  type: 'array',
  items: {
    oneOf: [
      { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text } },
      {
        type: 'object',
        required: ['type', 'data', 'mimeType'],
        properties: { type: { const: 'image' }, data: text, mimeType: text },
      },
    ],
  },
} as const;
const content = { oneOf: [text, parts] } as const;

/** The transcript format (version 1) as a JSON Schema; the comment at the top of this file explains it. */
export const TRANSCRIPT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://agentforge.dev/schemas/transcript-1.json',
  type: 'object',
  required: [
    'format',
    'version',
    'runId',
    'model',
    'task',
    'answer',
    'stopReason',
    'steps',
    'startedAt',
    'durationMs',
    'usage',
    'servers',
    'tools',
    'messages',
    'toolCalls',
  ],
  properties: {
    format: { const: 'agentforge.transcript' },
    version: { const: TRANSCRIPT_VERSION },
    runId: text,
    model: { type: 'string', pattern: '^[^:]+:.+$' },
    task: text,
    answer: text,
    stopReason: { enum: ['answer', 'max_steps', 'cancelled', 'max_tokens', 'refusal', 'error'] },
    steps: count,
    startedAt: { type: 'string', format: 'date-time' },
    durationMs: { type: 'number', minimum: 0 },
    usage: {
      type: 'object',
      required: ['inputTokens', 'outputTokens'],
      properties: { inputTokens: count, outputTokens: count },
    },
    servers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'state', 'toolCount'],
        properties: {
          name: text,
          state: { enum: ['disabled', 'connecting', 'ready', 'failed', 'closed'] },
          protocolVersion: text,
          era: { enum: ['handshake', 'stateless'] },
          toolCount: count,
          error: text,
        },
      },
    },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['llmName', 'server', 'mcpName'],
        properties: {
          llmName: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
          server: text,
          mcpName: text,
        },
      },
    },
    messages: { type: 'array', items: { $ref: '#/$defs/message' } },
    toolCalls: { type: 'array', items: { $ref: '#/$defs/toolCall' } },
    error: { type: 'object', required: ['name', 'message'], properties: { name: text, message: text } },
  },
  $defs: {
    message: {
      oneOf: [
        {
          type: 'object',
          required: ['role', 'content'],
          properties: { role: { enum: ['system', 'user'] }, content },
        },
        {
          type: 'object',
          required: ['role', 'content', 'toolCalls'],
          properties: {
            role: { const: 'assistant' },
            content: text,
            toolCalls: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'name', 'arguments'],
                properties: { id: text, name: text, arguments: { type: 'object' } },
              },
            },
          },
        },
        {
          type: 'object',
          required: ['role', 'toolCallId', 'name', 'content'],
          properties: {
            role: { const: 'tool' },
            toolCallId: text,
            name: text,
            content,
            isError: { type: 'boolean' },
          },
        },
      ],
    },
    toolCall: {
      type: 'object',
      required: [
        'id',
        'step',
        'llmName',
        'server',
        'mcpName',
        'arguments',
        'status',
        'isError',
        'result',
        'approval',
        'timing',
      ],
      properties: {
        id: text,
        step: { type: 'integer', minimum: 1 },
        llmName: text,
        server: nullableText,
        mcpName: nullableText,
        arguments: { type: 'object' },
        status: {
          enum: ['ok', 'denied', 'unknown_tool', 'invalid_arguments', 'protocol_error', 'cancelled'],
        },
        isError: { type: 'boolean' },
        result: { type: 'object', required: ['content'], properties: { content: { type: 'array' } } },
        approval: {
          oneOf: [
            { type: 'null' },
            {
              type: 'object',
              required: ['decision', 'by'],
              properties: {
                decision: { enum: ['approved', 'denied'] },
                by: { enum: ['policy', 'config', 'user', 'middleware', 'non-interactive'] },
                reason: text,
              },
            },
          ],
        },
        error: {
          type: 'object',
          required: ['message'],
          properties: { message: text, code: { type: ['string', 'number'] } },
        },
        timing: {
          type: 'object',
          required: ['startedAt', 'durationMs'],
          properties: { startedAt: { type: 'string', format: 'date-time' }, durationMs: count },
        },
      },
    },
  },
} as const;
