// Telemetry for the tracing rows: an OpenTelemetry SDK as an application runs it in production (sdk-trace-node's
// provider, batched spans, periodic metrics), exporting to exporters that drop everything: the cost measured is
// agentforge's instrumentation and the SDK's own, not an exporter's I/O.
import { metrics, propagation } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

const dropSpans = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
const dropMetrics = {
  export: (_metrics, done) => done({ code: 0 }),
  forceFlush: async () => {},
  shutdown: async () => {},
};

export function noopExportTelemetry() {
  return {
    tracerProvider: new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropSpans)] }),
    meterProvider: new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 60_000 })],
    }),
  };
}

/**
 * --otel=installed: the hook in place, no SDK anywhere (it must step aside); --otel=sdk: spans and metrics on.
 * `registered`: the SDK registered globally as `provider.register()` does (the tracer and meter providers, the
 * AsyncLocalStorage context manager, the W3C propagator), for a process traced alone (the server child).
 * Otherwise the providers are given to the instrumentation and only the W3C propagator is registered: the
 * bench's client process also holds the untraced pairs, and a context manager there would tax their promises
 * too (Node 20's AsyncLocalStorage hooks every promise of the process once it is entered).
 */
export async function otelOptions(mode, { registered = false } = {}) {
  if (mode !== 'sdk') return {};
  const telemetry = noopExportTelemetry();
  if (!registered) {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    return telemetry;
  }
  telemetry.tracerProvider.register();
  metrics.setGlobalMeterProvider(telemetry.meterProvider);
  return {};
}
