/**
 * SERVER spans and the `mcp.server.operation.duration` histogram for every request an `McpServer` answers, as
 * its request hook (`McpServerOptions.aroundRequest`). The parent is the caller's trace from `_meta`, else from
 * the W3C headers of the HTTP request (mcp.md: Context propagation), and the handler runs in the span's
 * context, so its own spans are children.
 */
import { type Attributes, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { toWireError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../mcp/types.js';
import type { IncomingRequest, RequestHook } from '../server/request-hook.js';
import { isPromise } from '../util/maybe-promise.js';
import { isRecord } from '../util/record.js';
import {
  Attr,
  Metric,
  TOOL_ERROR,
  contentAttribute,
  isToolError,
  metricAttributes,
  operationOf,
} from './conventions.js';
import { Instruments, type TelemetryOptions, extractTrace } from './instruments.js';

/** The trace the request carries: `_meta` first (the spec's place for it), then the HTTP headers. */
function carrierOf(request: IncomingRequest): Record<string, unknown> {
  const meta = request.params?._meta;
  if (isRecord(meta) && typeof meta.traceparent === 'string') return meta;
  const headers = request.extra?.headers;
  if (!headers) return {};
  const carrier: Record<string, unknown> = {};
  for (const key of ['traceparent', 'tracestate', 'baggage']) {
    const value = headers.get(key);
    if (value !== null) carrier[key] = value;
  }
  return carrier;
}

function requestAttributes(request: IncomingRequest, operation: Attributes): Attributes {
  const attributes: Attributes = { ...operation, [Attr.JsonRpcRequestId]: String(request.id) };
  const asked = request.method === 'initialize' ? request.params?.protocolVersion : undefined;
  const version = typeof asked === 'string' ? asked : request.protocolVersion;
  if (version) attributes[Attr.McpProtocolVersion] = version.slice(0, 64);
  // mcp.md: Recording MCP transport: stdio is a pipe; an HTTP request brings its headers.
  if (request.extra?.headers) {
    attributes[Attr.NetworkTransport] = 'tcp';
    attributes[Attr.NetworkProtocolName] = 'http';
  } else attributes[Attr.NetworkTransport] = 'pipe';
  const sessionId = request.extra?.sessionId;
  if (typeof sessionId === 'string') attributes[Attr.McpSessionId] = sessionId;
  return attributes;
}

/** Ends the span and records the duration, whatever the outcome; returns what the handler gave. */
class ServerOperation {
  readonly #span: Span | undefined;
  readonly #attributes: Attributes;
  readonly #started = performance.now();

  constructor(
    readonly request: IncomingRequest,
    span: Span | undefined,
    attributes: Attributes,
    readonly instruments: Instruments,
  ) {
    this.#span = span;
    this.#attributes = attributes;
  }

  succeeded(result: JSONObject): JSONObject {
    if (isToolError(this.request.method, result)) {
      this.#attributes[Attr.ErrorType] = TOOL_ERROR;
      this.#span?.setAttribute(Attr.ErrorType, TOOL_ERROR);
      this.#span?.setStatus({ code: SpanStatusCode.ERROR, message: TOOL_ERROR });
    }
    if (this.instruments.recordContent && this.request.method === 'tools/call') {
      const recorded = contentAttribute(result);
      if (recorded !== undefined) this.#span?.setAttribute(Attr.GenAiToolCallResult, recorded);
    }
    this.#end();
    return result;
  }

  /** The error as the client will see it: the JSON-RPC code the server answers with. */
  failed(error: unknown): never {
    const code = String(toWireError(error).code);
    this.#attributes[Attr.ErrorType] = code;
    this.#attributes[Attr.RpcResponseStatusCode] = code;
    if (this.#span) {
      this.#span.setAttributes({ [Attr.ErrorType]: code, [Attr.RpcResponseStatusCode]: code });
      if (error instanceof Error) this.#span.recordException(error);
      this.#span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : code,
      });
    }
    this.#end();
    throw error;
  }

  #end(): void {
    this.#span?.end();
    const duration = (performance.now() - this.#started) / 1000;
    this.instruments.histogram()?.record(duration, metricAttributes(this.#attributes));
  }
}

/**
 * The server hook: `new McpServer(info, { aroundRequest: serverTracing() })`. With no SDK registered (and no
 * providers given) it runs the handler and nothing else.
 */
export function serverTracing(options: TelemetryOptions = {}): RequestHook {
  const instruments = new Instruments(options, {
    name: Metric.ServerOperationDuration,
    description: 'The duration of an MCP request or notification as the server observes it',
  });
  return (request, handle) => {
    const tracer = instruments.tracer();
    if (tracer === undefined && instruments.histogram() === undefined) return handle();
    const operation = operationOf(request.method, request.params);
    const attributes = requestAttributes(request, operation.attributes);
    const parent = tracer ? extractTrace(carrierOf(request)) : context.active();
    const span = tracer?.startSpan(operation.name, { kind: SpanKind.SERVER, attributes }, parent);
    if (span && instruments.recordContent && request.method === 'tools/call') {
      const recorded = contentAttribute(request.params?.arguments);
      if (recorded !== undefined) span.setAttribute(Attr.GenAiToolCallArguments, recorded);
    }
    const tracked = new ServerOperation(request, span, attributes, instruments);
    let result: ReturnType<typeof handle>;
    try {
      result = span ? context.with(trace.setSpan(parent, span), handle) : handle();
    } catch (error) {
      return tracked.failed(error);
    }
    if (!isPromise(result)) return tracked.succeeded(result);
    return Promise.resolve(result).then(
      (value) => tracked.succeeded(value),
      (error: unknown) => tracked.failed(error),
    );
  };
}
