/**
 * SERVER spans for the requests a server makes of the client (elicitation/create, sampling/createMessage,
 * roots/list), in both eras: a handshake-era server's own requests and 2026-07-28 MRTR input requests reach
 * the client's handlers alike. mcp.md: the Server span "is reported ... by the MCP client when server initiates
 * the operation". Its parent is the trace the request carries in `_meta`, else the active context (the call
 * that needed the input, for an MRTR round).
 */
import { type Context, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { ClientHandlers } from '../client/contracts.js';
import { Method } from '../mcp/methods.js';
import { isRecord } from '../util/record.js';
import { Attr, Metric, errorTypeOf } from './conventions.js';
import { Instruments, type TelemetryOptions, extractTrace } from './instruments.js';

/**
 * The handlers, each answering inside a SERVER span and timed in `mcp.server.operation.duration`:
 * `McpClient.connect(target, { handlers: inputTracing({ elicitation, sampling, roots }) })`. With no SDK
 * registered (and no providers given) each handler runs as given.
 */
export function inputTracing(handlers: ClientHandlers, options: TelemetryOptions = {}): ClientHandlers {
  const instruments = new Instruments(options, {
    name: Metric.ServerOperationDuration,
    description: 'The duration of an MCP request or notification as the server observes it',
  });
  const traced: ClientHandlers = {};
  const { elicitation, sampling, roots } = handlers;
  if (elicitation)
    traced.elicitation = (params, input) =>
      answer(instruments, Method.ElicitationCreate, params, () => elicitation(params, input));
  if (sampling)
    traced.sampling = (params, input) =>
      answer(instruments, Method.SamplingCreateMessage, params, () => sampling(params, input));
  if (roots) traced.roots = (input) => answer(instruments, Method.RootsList, undefined, () => roots(input));
  return traced;
}

async function answer<T>(
  instruments: Instruments,
  method: string,
  params: unknown,
  handle: () => T | Promise<T>,
): Promise<T> {
  const tracer = instruments.tracer();
  const histogram = instruments.histogram();
  if (tracer === undefined && histogram === undefined) return handle();
  const meta = isRecord(params) ? params._meta : undefined;
  const parent: Context =
    isRecord(meta) && typeof meta.traceparent === 'string' ? extractTrace(meta) : context.active();
  const attributes = { [Attr.McpMethodName]: method };
  const span = tracer?.startSpan(method, { kind: SpanKind.SERVER, attributes }, parent);
  const started = performance.now();
  try {
    const result = span ? await context.with(trace.setSpan(parent, span), handle) : await handle();
    histogram?.record((performance.now() - started) / 1000, attributes);
    return result;
  } catch (error) {
    const failure = errorTypeOf(error);
    if (span) {
      span.setAttribute(Attr.ErrorType, failure.type);
      if (failure.code !== undefined) span.setAttribute(Attr.RpcResponseStatusCode, String(failure.code));
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : failure.type,
      });
    }
    histogram?.record((performance.now() - started) / 1000, {
      ...attributes,
      [Attr.ErrorType]: failure.type,
    });
    throw error;
  } finally {
    span?.end();
  }
}
