/**
 * SERVER spans and the `mcp.server.operation.duration` histogram for every request an `McpServer` answers, as
 * its request hook (`McpServerOptions.aroundRequest`). The parent is the caller's trace from `_meta`, else from
 * the W3C headers of the HTTP request (mcp.md: Context propagation), and the handler runs in the span's
 * context, so its own spans are children.
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
import { toWireError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../mcp/types.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import type { IncomingRequest, RequestHook, SessionEnd } from '../server/request-hook.js';
import { isPromise } from '../util/maybe-promise.js';
import { isRecord } from '../util/record.js';
import {
  Attr,
  Metric,
  OVER_HTTP,
  OVER_PIPE,
  OperationCache,
  TOOL_ERROR,
  contentAttribute,
  errorTypeOf,
  isToolError,
  withError,
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

function protocolVersionOf(request: IncomingRequest): string {
  const asked = request.method === 'initialize' ? request.params?.protocolVersion : undefined;
  return (typeof asked === 'string' ? asked : request.protocolVersion).slice(0, 64);
}

const MAX_METHOD_LENGTH = 256;

/**
 * mcp.md: Metric `mcp.server.session.duration`: a handshake-era session from its initialize to its close, with
 * `error.type` when it closed on a failure (the transport's reason), not when either side closed it.
 */
function timeSession(
  instruments: Instruments,
  session: SessionEnd,
  transport: Attributes,
): (result: JSONObject) => void {
  const started = performance.now();
  return (result) => {
    if (timedSessions.has(session)) return;
    timedSessions.add(session);
    const version = typeof result.protocolVersion === 'string' ? result.protocolVersion.slice(0, 64) : '';
    session.onClose((reason) => {
      const attributes: Attributes = version
        ? { ...transport, [Attr.McpProtocolVersion]: version }
        : { ...transport };
      if (reason.cause !== undefined) attributes[Attr.ErrorType] = errorTypeOf(reason.cause).type;
      instruments.sessionHistogram()?.record((performance.now() - started) / 1000, attributes);
    });
  };
}

/** Sessions already timed: a second initialize on one session does not time it twice. */
const timedSessions = new WeakSet<SessionEnd>();

/** mcp.md: Server span: `client.address` and `client.port`, when the request came over a socket. */
function recordClientAddress(span: Span, extra: MessageExtra | undefined): void {
  const address = extra?.remoteAddress;
  if (typeof address !== 'string') return;
  span.setAttribute(Attr.ClientAddress, address);
  const port = extra?.remotePort;
  if (typeof port === 'number') span.setAttribute(Attr.ClientPort, port);
}

/** Ends the span and records the duration, whatever the outcome; returns what the handler gave. */
class ServerOperation {
  readonly #span: Span | undefined;
  readonly #metricBase: Attributes;
  readonly #started = performance.now();

  readonly #histogram: Histogram | undefined;

  constructor(
    readonly request: IncomingRequest,
    span: Span | undefined,
    metricBase: Attributes,
    histogram: Histogram | undefined,
    readonly recordContent: boolean,
    /** Runs with an initialize result: the session it opened is timed from here. */
    readonly initialized?: (result: JSONObject) => void,
  ) {
    this.#span = span;
    this.#metricBase = metricBase;
    this.#histogram = histogram;
  }

  succeeded(result: JSONObject): JSONObject {
    const toolError = isToolError(this.request.method, result);
    if (toolError) {
      this.#span?.setAttribute(Attr.ErrorType, TOOL_ERROR);
      this.#span?.setStatus({ code: SpanStatusCode.ERROR, message: TOOL_ERROR });
    }
    if (this.recordContent && this.request.method === 'tools/call') {
      const recorded = contentAttribute(result);
      if (recorded !== undefined) this.#span?.setAttribute(Attr.GenAiToolCallResult, recorded);
    }
    this.#end(toolError ? withError(this.#metricBase, TOOL_ERROR, undefined) : this.#metricBase);
    this.initialized?.(result);
    return result;
  }

  /** The error as the client will see it: the JSON-RPC code the server answers with. */
  failed(error: unknown): never {
    const code = toWireError(error).code;
    const type = String(code);
    if (this.#span) {
      this.#span.setAttributes({ [Attr.ErrorType]: type, [Attr.RpcResponseStatusCode]: type });
      if (error instanceof Error) this.#span.recordException(error);
      this.#span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : type,
      });
    }
    this.#end(withError(this.#metricBase, type, code));
    throw error;
  }

  #end(metricAttributes: Attributes): void {
    this.#span?.end();
    this.#histogram?.record((performance.now() - this.#started) / 1000, metricAttributes);
  }
}

/**
 * The server hook: `new McpServer(info, { aroundRequest: serverTracing() })`. With no SDK registered (and no
 * providers given) it runs the handler and nothing else.
 */
export function serverTracing(options: TelemetryOptions = {}): RequestHook {
  const instruments = new Instruments(
    options,
    {
      name: Metric.ServerOperationDuration,
      description: 'The duration of an MCP request or notification as the server observes it',
    },
    {
      name: Metric.ServerSessionDuration,
      description: 'The duration of an MCP session as the server observes it',
    },
  );
  const operations = new OperationCache<Attributes>((transport) => transport);
  return (request, handle) => {
    const tracer = instruments.tracer();
    const histogram = instruments.histogram();
    if (tracer === undefined && histogram === undefined) return handle();
    const { params } = request;
    // An unknown method reaches the hook too (it is answered -32601): the peer's string, so bounded.
    const method =
      request.method.length > MAX_METHOD_LENGTH ? request.method.slice(0, MAX_METHOD_LENGTH) : request.method;
    const version = protocolVersionOf(request);
    // Asked with `in`, not read: an HTTP exchange builds its Headers object on first read, and the trace is in
    // `_meta` (so the headers are never needed) for every client that follows the spec.
    const overHttp = request.extra !== undefined && 'headers' in request.extra;
    const transport = overHttp ? OVER_HTTP : OVER_PIPE;
    const operation = operations.get(transport, method, params, version);
    let span: Span | undefined;
    let parent: Context | undefined;
    if (tracer) {
      parent = extractTrace(carrierOf(request));
      span = tracer.startSpan(
        operation.name,
        { kind: SpanKind.SERVER, attributes: operation.spanAttributes },
        parent,
      );
      span.setAttribute(Attr.JsonRpcRequestId, String(request.id));
      const sessionId = request.extra?.sessionId;
      if (typeof sessionId === 'string') span.setAttribute(Attr.McpSessionId, sessionId);
      if (overHttp) recordClientAddress(span, request.extra);
      if (instruments.recordContent && method === 'tools/call') {
        const recorded = contentAttribute(params?.arguments);
        if (recorded !== undefined) span.setAttribute(Attr.GenAiToolCallArguments, recorded);
      }
    }
    const tracked = new ServerOperation(
      request,
      span,
      operation.metricAttributes,
      histogram,
      instruments.recordContent,
      method === 'initialize' && request.session !== undefined
        ? timeSession(instruments, request.session, transport)
        : undefined,
    );
    let result: ReturnType<typeof handle>;
    try {
      // The handler's own spans are children of this one: it runs with the span's context active.
      result = span && parent ? context.with(trace.setSpan(parent, span), handle) : handle();
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
