/**
 * CLIENT spans and the `mcp.client.operation.duration` histogram for every request an `McpClient` sends, as
 * one request-pipeline middleware (`ClientOptions.middleware`). The span is the active context's child (an
 * agent's `execute_tool` span, the user's own), and its context travels to the server in `_meta` and, over
 * HTTP, in the W3C headers (mcp.md: Context propagation).
 */
import { type Attributes, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { ClientMiddleware, ClientRequestContext, Link } from '../client/contracts.js';
import type { Result } from '../jsonrpc/connection.js';
import { Method } from '../mcp/methods.js';
import { SseClientTransport } from '../transports/http/client/sse.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import {
  Attr,
  Metric,
  OperationCache,
  TOOL_ERROR,
  contentAttribute,
  errorTypeOf,
  isToolError,
  withError,
} from './conventions.js';
import { Instruments, type TelemetryOptions, injectTrace } from './instruments.js';

/** mcp.md: Recording MCP transport: `pipe` for stdio, `tcp` under HTTP, with the HTTP server's address. */
function transportAttributes(link: Link): Attributes {
  const { transport, kind } = link;
  if (kind === 'stdio') return { [Attr.NetworkTransport]: 'pipe' };
  const url =
    transport instanceof StreamableHttpClientTransport || transport instanceof SseClientTransport
      ? transport.url
      : undefined;
  if (!url) return {};
  return {
    [Attr.NetworkTransport]: 'tcp',
    [Attr.NetworkProtocolName]: 'http',
    [Attr.ServerAddress]: url.hostname.replace(/^\[|\]$/g, ''),
    [Attr.ServerPort]: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
  };
}

function protocolVersionOf(request: ClientRequestContext): string {
  if (request.method === Method.Initialize) {
    const asked = request.params?.protocolVersion;
    return typeof asked === 'string' ? asked.slice(0, 64) : '';
  }
  return request.codec.version;
}

function recordFailure(span: Span | undefined, error: unknown): { type: string; code?: number } {
  const failure = errorTypeOf(error);
  if (span) {
    span.setAttribute(Attr.ErrorType, failure.type);
    if (failure.code !== undefined) span.setAttribute(Attr.RpcResponseStatusCode, String(failure.code));
    if (error instanceof Error) span.recordException(error);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : failure.type,
    });
  }
  return failure;
}

/** What a finished result adds to the span; the `error.type` of a tool error, if it is one. */
function recordResult(
  span: Span | undefined,
  request: ClientRequestContext,
  result: Result,
  recordContent: boolean,
): string | undefined {
  const toolError = isToolError(request.method, result);
  if (!span) return toolError ? TOOL_ERROR : undefined;
  if (toolError) {
    span.setAttribute(Attr.ErrorType, TOOL_ERROR);
    span.setStatus({ code: SpanStatusCode.ERROR, message: TOOL_ERROR });
  }
  const transport = request.link.transport;
  if (transport instanceof StreamableHttpClientTransport && transport.sessionId)
    span.setAttribute(Attr.McpSessionId, transport.sessionId);
  if (recordContent && request.method === Method.ToolsCall) {
    const recorded = contentAttribute(result);
    if (recorded !== undefined) span.setAttribute(Attr.GenAiToolCallResult, recorded);
  }
  return toolError ? TOOL_ERROR : undefined;
}

/**
 * mcp.md: Metric `mcp.client.session.duration`: a link's session from its first connect-time request
 * (initialize, or server/discover in 2026-07-28) to its close, with `error.type` when the link failed (the
 * transport's reason: a server process that exited, a stream that broke), not when the client closed it.
 */
class ClientSessions {
  readonly #versions = new WeakMap<Link, { version: string }>();
  readonly #instruments: Instruments;

  constructor(instruments: Instruments) {
    this.#instruments = instruments;
  }

  /** A connect-time request on `link`: the first one starts the session's clock. */
  opening(request: ClientRequestContext): void {
    const { link } = request;
    if (this.#versions.has(link)) return;
    const session = { version: request.codec.version };
    this.#versions.set(link, session);
    const started = performance.now();
    link.connection.onClose((reason) => {
      const transport = transportAttributes(link);
      const attributes: Attributes = session.version
        ? { ...transport, [Attr.McpProtocolVersion]: session.version }
        : { ...transport };
      if (reason.cause !== undefined) attributes[Attr.ErrorType] = errorTypeOf(reason.cause).type;
      this.#instruments.sessionHistogram()?.record((performance.now() - started) / 1000, attributes);
    });
  }

  /** The revision the session speaks: initialize's answer, else the codec's. */
  opened(request: ClientRequestContext, result: Result): void {
    const session = this.#versions.get(request.link);
    if (session === undefined) return;
    const answered = request.method === Method.Initialize ? result.protocolVersion : undefined;
    session.version = typeof answered === 'string' ? answered.slice(0, 64) : request.codec.version;
  }
}

/**
 * The client middleware: `McpClient.connect(target, { middleware: [clientTracing()] })`. With no SDK
 * registered (and no providers given) it passes every request straight on.
 */
export function clientTracing(options: TelemetryOptions = {}): ClientMiddleware {
  const instruments = new Instruments(
    options,
    {
      name: Metric.ClientOperationDuration,
      description: 'The duration of an MCP request or notification as the client observes it',
    },
    {
      name: Metric.ClientSessionDuration,
      description: 'The duration of an MCP session as the client observes it',
    },
  );
  const operations = new OperationCache<Link>(transportAttributes);
  const sessions = new ClientSessions(instruments);
  const extraAttributes = options.attributes;
  return (request, next) => {
    const tracer = instruments.tracer();
    const histogram = instruments.histogram();
    if (tracer === undefined && histogram === undefined) return next(request);
    const { method, params } = request;
    if (request.connecting) sessions.opening(request);
    const operation = operations.get(request.link, method, params, protocolVersionOf(request));
    let span: Span | undefined;
    let options = request.options;
    if (tracer) {
      const parent = context.active();
      span = tracer.startSpan(
        operation.name,
        { kind: SpanKind.CLIENT, attributes: operation.spanAttributes },
        parent,
      );
      if (extraAttributes) span.setAttributes(extraAttributes);
      if (instruments.recordContent && method === Method.ToolsCall) {
        const recorded = contentAttribute(params?.arguments);
        if (recorded !== undefined) span.setAttribute(Attr.GenAiToolCallArguments, recorded);
      }
      const fields = injectTrace(trace.setSpan(parent, span));
      if (fields.traceparent) options = { ...options, ...fields };
    }
    const started = histogram ? performance.now() : 0;
    const settle = (errorType: string | undefined, code?: number) => {
      span?.end();
      if (!histogram) return;
      const base = operation.metricAttributes;
      const attributes = errorType === undefined ? base : withError(base, errorType, code);
      histogram.record((performance.now() - started) / 1000, attributes);
    };
    const pending = next(options === request.options ? request : { ...request, options });
    // The pipeline hands a request to its transport synchronously: the last id sent is this request's.
    if (span && request.kind === 'request') {
      const id = request.link.lastRequestId();
      if (id !== undefined) span.setAttribute(Attr.JsonRpcRequestId, String(id));
    }
    return pending.then(
      (result) => {
        settle(recordResult(span, request, result, instruments.recordContent));
        if (request.connecting) sessions.opened(request, result);
        return result;
      },
      (error: unknown) => {
        const failure = recordFailure(span, error);
        settle(failure.type, failure.code);
        throw error;
      },
    );
  };
}
