/** An SDK registered in the test process, and the spans a traced child-process server writes to a file. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics, trace } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';

export const OTEL_SERVER = join(import.meta.dirname, '..', 'fixtures', 'otel-server.mjs');

/** A reader the test collects from when it wants to (no export interval). */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Sdk {
  readonly spans: InMemorySpanExporter;
  /** The metrics recorded so far, by instrument name. */
  collect(): Promise<Map<string, MetricData>>;
}

/** Registers a tracer provider (with the AsyncLocalStorage context manager and W3C propagators) and a meter. */
export function registerSdk(): Sdk {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  tracerProvider.register();
  const reader = new CollectingReader();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  return {
    spans,
    async collect() {
      const { resourceMetrics } = await reader.collect();
      const found = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics) found.set(metric.descriptor.name, metric);
      return found;
    },
  };
}

export type HistogramPoint = DataPoint<Histogram>;

export function histogramPoints(metric: MetricData | undefined): HistogramPoint[] {
  return (metric?.dataPoints ?? []) as HistogramPoint[];
}

/** A span as the fixture server writes it. */
export interface FileSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
  readonly status: { code: number; message?: string };
}

export interface SpanFile {
  readonly path: string;
  /** The spans written so far; waits (up to 5 s) until one named `name` is there. */
  waitFor(name: string): Promise<FileSpan[]>;
  dispose(): void;
}

export function spanFile(): SpanFile {
  const dir = mkdtempSync(join(tmpdir(), 'agentforge-otel-'));
  const path = join(dir, 'spans.jsonl');
  const read = (): FileSpan[] =>
    existsSync(path)
      ? readFileSync(path, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as FileSpan)
      : [];
  return {
    path,
    async waitFor(name) {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const spans = read();
        if (spans.some((span) => span.name === name) || Date.now() > deadline) return spans;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`${found.length} spans named ${name}: ${spans.map((s) => s.name)}`);
  return found[0]!;
}

/** Runs `work` inside an active span of the test's own, the root every MCP span must descend from. */
export function rootedIn(sdk: Sdk) {
  const tracer = trace.getTracer('test');
  return async <T>(work: () => Promise<T>): Promise<{ root: ReadableSpan; value: T }> => {
    let rootId = '';
    const value = await tracer.startActiveSpan('test root', async (span) => {
      rootId = span.spanContext().spanId;
      try {
        return await work();
      } finally {
        span.end();
      }
    });
    const root = sdk.spans.getFinishedSpans().find((span) => span.spanContext().spanId === rootId)!;
    return { root, value };
  };
}
