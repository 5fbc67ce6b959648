// Telemetry for the tracing rows: an OpenTelemetry SDK as an application runs it (batched spans, periodic
// metrics), exporting to exporters that drop everything: the cost measured is agentforge's instrumentation
// and the SDK's own, not an exporter's I/O.
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

const dropSpans = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
const dropMetrics = {
  export: (_metrics, done) => done({ code: 0 }),
  forceFlush: async () => {},
  shutdown: async () => {},
};

export function noopExportTelemetry() {
  return {
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropSpans)] }),
    meterProvider: new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 60_000 })],
    }),
  };
}

// --otel=installed: the hook in place, no SDK anywhere (it must step aside); --otel=sdk: spans and metrics on.
export async function otelOptions(mode) {
  return mode === 'sdk' ? noopExportTelemetry() : {};
}
