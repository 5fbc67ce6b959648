/**
 * GenAI agent spans for the agent's tool loop (semantic-conventions-genai: gen-ai-agent-spans.md,
 * gen-ai-spans.md): `invoke_agent` around a run, `chat {model}` around each model turn, `execute_tool {tool}`
 * around each tool call. Each is the active context while its work runs, so the MCP client's CLIENT span of a
 * tools/call (`clientTracing()`) is the child of its `execute_tool`, and the server's SERVER span its
 * grandchild.
 */
import { type Attributes, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { RunResult } from '../agent/events.js';
import type { ModelMiddleware, ToolMiddleware } from '../agent/middleware.js';
import type { AgentTracing } from '../agent/tracing.js';
import { Attr, TOOL_ERROR, contentAttribute, errorTypeOf } from './conventions.js';
import { Instruments, type TelemetryOptions } from './instruments.js';

/** `openai:gpt-4o` is provider `openai`, model `gpt-4o`; a bare id names the model only. */
function modelAttributes(id: string): Attributes {
  const colon = id.indexOf(':');
  if (colon <= 0) return { [Attr.GenAiRequestModel]: id };
  return { [Attr.GenAiProviderName]: id.slice(0, colon), [Attr.GenAiRequestModel]: id.slice(colon + 1) };
}

function fail(span: Span, error: unknown): never {
  span.setAttribute(Attr.ErrorType, errorTypeOf(error).type);
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : 'error' });
  span.end();
  throw error;
}

/** Runs `work` in a span of its own (the active context meanwhile); `done` annotates the span with the outcome. */
async function inSpan<T>(
  span: Span,
  work: () => Promise<T>,
  done: (span: Span, value: T) => void,
): Promise<T> {
  let value: T;
  try {
    value = await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    return fail(span, error);
  }
  done(span, value);
  span.end();
  return value;
}

function runEnded(span: Span, result: RunResult): void {
  span.setAttributes({
    [Attr.GenAiConversationId]: result.runId,
    [Attr.GenAiUsageInputTokens]: result.usage.inputTokens,
    [Attr.GenAiUsageOutputTokens]: result.usage.outputTokens,
  });
  if (result.stopReason === 'error' || result.stopReason === 'cancelled') {
    span.setAttribute(
      Attr.ErrorType,
      result.stopReason === 'cancelled' ? 'cancelled' : (result.error?.name ?? 'error'),
    );
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error?.message ?? result.stopReason });
  }
}

function chatMiddleware(instruments: Instruments, model: Attributes): ModelMiddleware {
  const name = `chat ${String(model[Attr.GenAiRequestModel])}`;
  return (turn, next) => {
    const tracer = instruments.tracer();
    if (!tracer) return next(turn);
    const { request } = turn;
    const attributes: Attributes = { [Attr.GenAiOperationName]: 'chat', ...model };
    if (request.maxTokens !== undefined) attributes[Attr.GenAiRequestMaxTokens] = request.maxTokens;
    if (request.temperature !== undefined) attributes[Attr.GenAiRequestTemperature] = request.temperature;
    if (instruments.recordContent) {
      const messages = contentAttribute(request.messages);
      if (messages !== undefined) attributes[Attr.GenAiInputMessages] = messages;
    }
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
    return inSpan(
      span,
      () => next(turn),
      (ended, response) => {
        ended.setAttribute(Attr.GenAiResponseFinishReasons, [response.stopReason]);
        if (response.usage) {
          ended.setAttribute(Attr.GenAiUsageInputTokens, response.usage.inputTokens);
          ended.setAttribute(Attr.GenAiUsageOutputTokens, response.usage.outputTokens);
        }
        if (instruments.recordContent) {
          const output = contentAttribute([response.message]);
          if (output !== undefined) ended.setAttribute(Attr.GenAiOutputMessages, output);
        }
      },
    );
  };
}

function toolMiddleware(instruments: Instruments): ToolMiddleware {
  return (call, next) => {
    const tracer = instruments.tracer();
    if (!tracer) return next(call);
    const toolName = call.call.name;
    const attributes: Attributes = {
      [Attr.GenAiOperationName]: 'execute_tool',
      [Attr.GenAiToolName]: toolName,
      [Attr.GenAiToolCallId]: call.call.id,
    };
    if (instruments.recordContent) {
      const recorded = contentAttribute(call.arguments);
      if (recorded !== undefined) attributes[Attr.GenAiToolCallArguments] = recorded;
    }
    const span = tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, attributes });
    return inSpan(
      span,
      () => next(call),
      (ended, outcome) => {
        // A call that never reached the server (denied, unknown tool, bad arguments) is named by its status.
        const errorType =
          outcome.status !== 'ok' ? outcome.status : outcome.result.isError ? TOOL_ERROR : undefined;
        if (errorType !== undefined) {
          ended.setAttribute(Attr.ErrorType, errorType);
          ended.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error?.message ?? errorType });
        }
        if (instruments.recordContent) {
          const recorded = contentAttribute(outcome.result);
          if (recorded !== undefined) ended.setAttribute(Attr.GenAiToolCallResult, recorded);
        }
      },
    );
  };
}

/**
 * The agent's tracer: `new Agent({ ..., tracing: agentTracing() })`. With no tracer provider registered (and
 * none given) runs, turns and calls go on untouched.
 */
export function agentTracing(options: TelemetryOptions = {}): AgentTracing {
  const instruments = new Instruments(options);
  return {
    invokeAgent(run, execute) {
      const tracer = instruments.tracer();
      if (!tracer) return execute();
      const attributes: Attributes = {
        [Attr.GenAiOperationName]: 'invoke_agent',
        ...modelAttributes(run.model),
      };
      if (instruments.recordContent) {
        const input = contentAttribute([{ role: 'user', content: run.input }]);
        if (input !== undefined) attributes[Attr.GenAiInputMessages] = input;
      }
      const span = tracer.startSpan('invoke_agent', { kind: SpanKind.INTERNAL, attributes });
      return inSpan(span, execute, runEnded);
    },
    chat: (model) => chatMiddleware(instruments, modelAttributes(model)),
    tool: toolMiddleware(instruments),
  };
}
