/**
 * SERVER spans for the requests a server makes of the client (elicitation/create, sampling/createMessage,
 * roots/list), in both eras: a handshake-era server's own requests and 2026-07-28 MRTR input requests reach
 * the client's handlers alike. mcp.md: the Server span "is reported ... by the MCP client when server initiates
 * the operation". Its parent is the trace the request carries in `_meta`, else the active context (the call
 * that needed the input, for an MRTR round).
 */
import {
  type Attributes,
  type Context,
  type Histogram,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
} from '@opentelemetry/api';
import type { ClientHandlers } from '../client/contracts.js';
import { Method } from '../mcp/methods.js';
import type { OutgoingRequestHook } from '../server/request-hook.js';
import { isRecord } from '../util/record.js';
import { Attr, Metric, OVER_HTTP, OVER_PIPE, errorTypeOf, withError } from './conventions.js';
import { Instruments, type TelemetryOptions, extractTrace, injectTrace } from './instruments.js';

/**
 * The server side of the same requests on a handshake-era session: a CLIENT span of each, a child of the
 * handler's SERVER span, its trace written into the request's `_meta` so the client's span (`inputTracing`)
 * continues it; timed in `mcp.client.operation.duration`.
 * `new McpServer(info, { aroundRequest: serverTracing(), aroundOutgoingRequest: clientRequestTracing() })`.
 * (A 2026-07-28 server asks inside its result, MRTR: the tools/call SERVER span covers each round.)
 */
export function clientRequestTracing(options: TelemetryOptions = {}): OutgoingRequestHook {
  const instruments = new Instruments(options, {
    name: Metric.ClientOperationDuration,
    description: 'The duration of an MCP request or notification as the client observes it',
  });
  return async (request, send) => {
    const tracer = instruments.tracer();
    const histogram = instruments.histogram();
    if (tracer === undefined && histogram === undefined) return send(request.params);
    const { method, extra, protocolVersion } = request;
    const overHttp = extra !== undefined && 'headers' in extra;
    const attributes: Attributes = {
      [Attr.McpMethodName]: method.slice(0, 256),
      ...(overHttp ? OVER_HTTP : OVER_PIPE),
      ...(protocolVersion ? { [Attr.McpProtocolVersion]: protocolVersion } : {}),
    };
    let params = request.params;
    let span: Span | undefined;
    if (tracer) {
      const parent = context.active();
      span = tracer.startSpan(method.slice(0, 256), { kind: SpanKind.CLIENT, attributes }, parent);
      if (typeof extra?.sessionId === 'string') span.setAttribute(Attr.McpSessionId, extra.sessionId);
      const fields = injectTrace(trace.setSpan(parent, span));
      if (fields.traceparent) {
        const meta = isRecord(params._meta) ? params._meta : {};
        params = { ...params, _meta: { ...meta, ...fields } };
      }
    }
    return timed(span, histogram, attributes, () => send(params));
  };
}

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
  return timed(span, histogram, attributes, async () =>
    span ? context.with(trace.setSpan(parent, span), handle) : handle(),
  );
}

/** Runs `run`, ends the span (an error with `error.type` if it threw) and records the duration. */
async function timed<T>(
  span: Span | undefined,
  histogram: Histogram | undefined,
  attributes: Attributes,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    const result = await run();
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
    histogram?.record(
      (performance.now() - started) / 1000,
      withError(attributes, failure.type, failure.code),
    );
    throw error;
  } finally {
    span?.end();
  }
}
