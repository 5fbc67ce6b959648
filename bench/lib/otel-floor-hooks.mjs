// The least instrumentation doing the SDK work agentforge/otel does on one echo tools/call (bench/otel-floor.mjs):
// a constant span name and attributes, one span and one histogram record per side, the trace injected into the
// request's options and extracted from `_meta`, the handler run in the span's context. Nothing else: what it
// costs is the SDK's floor, and agentforge's hooks cost that plus their own share.
import { ROOT_CONTEXT, SpanKind, context, metrics, propagation, trace } from '@opentelemetry/api';

const NAME = 'tools/call echo';
const ATTRIBUTES = {
  'mcp.method.name': 'tools/call',
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'echo',
  'network.transport': 'pipe',
  'mcp.protocol.version': '2026-07-28',
};
const histogram = (provider, name) =>
  provider.getMeter('agentforge', '1').createHistogram(name, { unit: 's' });

export function floorClient({ tracerProvider, meterProvider }) {
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer('agentforge', '1');
  const duration = histogram(meterProvider ?? metrics.getMeterProvider(), 'mcp.client.operation.duration');
  return (request, next) => {
    const span = tracer.startSpan(NAME, { kind: SpanKind.CLIENT, attributes: ATTRIBUTES }, context.active());
    const fields = {};
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), fields);
    const started = performance.now();
    return next({ ...request, options: { ...request.options, ...fields } }).then((result) => {
      span.end();
      duration.record((performance.now() - started) / 1000, ATTRIBUTES);
      return result;
    });
  };
}

export function floorServer({ tracerProvider, meterProvider } = {}) {
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer('agentforge', '1');
  const duration = histogram(meterProvider ?? metrics.getMeterProvider(), 'mcp.server.operation.duration');
  return (request, handle) => {
    const started = performance.now();
    const parent = propagation.extract(ROOT_CONTEXT, request.params?._meta ?? {});
    const span = tracer.startSpan(NAME, { kind: SpanKind.SERVER, attributes: ATTRIBUTES }, parent);
    const done = (result) => {
      span.end();
      duration.record((performance.now() - started) / 1000, ATTRIBUTES);
      return result;
    };
    const result = context.with(trace.setSpan(parent, span), handle);
    return result instanceof Promise ? result.then(done) : done(result);
  };
}

/**
 * A tracer and meter that do nothing but hand out one valid span: with them the hooks cost only their own code
 * and the API's (context, propagation), so agentforge's share can be told from the least hook's.
 */
export function hollowTelemetry() {
  const spanContext = { traceId: '2'.repeat(32), spanId: '3'.repeat(16), traceFlags: 1 };
  const span = {
    spanContext: () => spanContext,
    setAttribute: () => span,
    setAttributes: () => span,
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: () => span,
    end: () => {},
    isRecording: () => true,
    recordException: () => {},
  };
  const tracer = { startSpan: () => span, startActiveSpan: () => undefined };
  const record = { record: () => {} };
  return {
    tracerProvider: { getTracer: () => tracer },
    meterProvider: { getMeter: () => ({ createHistogram: () => record }) },
  };
}
