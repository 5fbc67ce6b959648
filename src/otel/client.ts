/**
 * CLIENT spans and the `mcp.client.operation.duration` histogram for every request an `McpClient` sends, as
 * one request-pipeline middleware (`ClientOptions.middleware`). The span is the active context's child (an
 * agent's `execute_tool` span, the user's own), and its context travels to the server in `_meta` and, over
 * HTTP, in the W3C headers (mcp.md: Context propagation).
 */
import { type Attributes, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { ClientMiddleware, ClientRequestContext } from '../client/pipeline.js';
import type { Result } from '../jsonrpc/connection.js';
import { Method } from '../mcp/methods.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { SseClientTransport } from '../transports/http/client/sse.js';
import {
  Attr,
  Metric,
  TOOL_ERROR,
  contentAttribute,
  errorTypeOf,
  isToolError,
  metricAttributes,
  operationOf,
} from './conventions.js';
import { Instruments, type TelemetryOptions, injectTrace } from './instruments.js';

/** mcp.md: Recording MCP transport: `pipe` for stdio, `tcp` under HTTP, with the HTTP server's address. */
function transportAttributes(request: ClientRequestContext, attributes: Attributes): void {
  const { transport, kind } = request.link;
  if (kind === 'stdio') {
    attributes[Attr.NetworkTransport] = 'pipe';
    return;
  }
  const url =
    transport instanceof StreamableHttpClientTransport || transport instanceof SseClientTransport
      ? transport.url
      : undefined;
  if (!url) return;
  attributes[Attr.NetworkTransport] = 'tcp';
  attributes[Attr.NetworkProtocolName] = 'http';
  attributes[Attr.ServerAddress] = url.hostname.replace(/^\[|\]$/g, '');
  attributes[Attr.ServerPort] = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function protocolVersionOf(request: ClientRequestContext): string | undefined {
  if (request.method === Method.Initialize) {
    const asked = request.params?.protocolVersion;
    return typeof asked === 'string' ? asked : undefined;
  }
  return request.codec.version || undefined;
}

function failed(span: Span | undefined, attributes: Attributes, error: unknown): void {
  const { type, code } = errorTypeOf(error);
  attributes[Attr.ErrorType] = type;
  if (code !== undefined) attributes[Attr.RpcResponseStatusCode] = String(code);
  if (!span) return;
  span.setAttributes(attributes);
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : type });
}

function finished(
  span: Span | undefined,
  attributes: Attributes,
  request: ClientRequestContext,
  result: Result,
  recordContent: boolean,
): void {
  if (isToolError(request.method, result)) {
    attributes[Attr.ErrorType] = TOOL_ERROR;
    span?.setStatus({ code: SpanStatusCode.ERROR, message: TOOL_ERROR });
  }
  const transport = request.link.transport;
  if (transport instanceof StreamableHttpClientTransport && transport.sessionId)
    span?.setAttribute(Attr.McpSessionId, transport.sessionId);
  if (recordContent && request.method === Method.ToolsCall) {
    const recorded = contentAttribute(result);
    if (recorded !== undefined) span?.setAttribute(Attr.GenAiToolCallResult, recorded);
  }
  span?.setAttributes(attributes);
}

/**
 * The client middleware: `McpClient.connect(target, { middleware: [clientTracing()] })`. With no SDK
 * registered (and no providers given) it passes every request straight on.
 */
export function clientTracing(options: TelemetryOptions = {}): ClientMiddleware {
  const instruments = new Instruments(options, {
    name: Metric.ClientOperationDuration,
    description: 'The duration of an MCP request or notification as the client observes it',
  });
  return (request, next) => {
    const tracer = instruments.tracer();
    const histogram = instruments.histogram();
    if (tracer === undefined && histogram === undefined) return next(request);
    const operation = operationOf(request.method, request.params);
    const attributes: Attributes = { ...operation.attributes };
    const version = protocolVersionOf(request);
    if (version) attributes[Attr.McpProtocolVersion] = version;
    transportAttributes(request, attributes);
    const parent = context.active();
    const span = tracer?.startSpan(operation.name, { kind: SpanKind.CLIENT, attributes }, parent);
    let options = request.options;
    if (span) {
      const fields = injectTrace(trace.setSpan(parent, span));
      if (fields.traceparent) options = { ...options, ...fields };
      if (instruments.recordContent && request.method === Method.ToolsCall) {
        const recorded = contentAttribute(request.params?.arguments);
        if (recorded !== undefined) span.setAttribute(Attr.GenAiToolCallArguments, recorded);
      }
    }
    const started = performance.now();
    const settle = () => {
      span?.end();
      histogram?.record((performance.now() - started) / 1000, metricAttributes(attributes));
    };
    let pending: Promise<Result>;
    try {
      pending = next(options === request.options ? request : { ...request, options });
    } catch (error) {
      failed(span, attributes, error);
      settle();
      throw error;
    }
    // The pipeline hands a request to its transport synchronously: the last id sent is this request's.
    const id = request.kind === 'request' ? request.link.lastRequestId() : undefined;
    if (id !== undefined) span?.setAttribute(Attr.JsonRpcRequestId, String(id));
    return pending.then(
      (result) => {
        finished(span, attributes, request, result, instruments.recordContent);
        settle();
        return result;
      },
      (error: unknown) => {
        failed(span, attributes, error);
        settle();
        throw error;
      },
    );
  };
}
