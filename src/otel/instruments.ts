/**
 * The tracer and histograms the instrumentation writes to, resolved from the given providers or the global
 * ones at each use (an SDK may be registered after the instrumentation was installed). With no SDK registered
 * both come back undefined and the instrumentation steps aside: no span, no clock read, no allocation.
 */
import {
  type Attributes,
  type Context,
  type Histogram,
  type MeterProvider,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Tracer,
  type TracerProvider,
  createNoopMeter,
  createTraceState,
  isSpanContextValid,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';
import { PACKAGE_VERSION } from '../util/version.js';
import { DURATION_BUCKETS } from './conventions.js';

/** The instrumentation scope every span and metric of agentforge is recorded under. */
export const SCOPE_NAME = 'agentforge';

/** Where telemetry goes; by default the globally registered SDK. */
export interface TelemetryOptions {
  readonly tracerProvider?: TracerProvider;
  readonly meterProvider?: MeterProvider;
  /**
   * Record tool arguments and results, prompt arguments and model messages on spans
   * (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, `gen_ai.input.messages`, ...). They may hold
   * personal or secret data: off by default.
   */
  readonly recordContent?: boolean;
  /** Set on every span this hook or middleware starts (a gateway names the upstream a request goes to). */
  readonly attributes?: Attributes;
}

/** The provider the API hands out when no SDK is registered. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NOOP_METER = createNoopMeter();

/** A histogram the instrumentation records into (seconds, the buckets mcp.md advises). */
export interface HistogramSpec {
  readonly name: string;
  readonly description: string;
}

export class Instruments {
  readonly #options: TelemetryOptions;
  readonly #histogramSpec: HistogramSpec | undefined;
  readonly #sessionSpec: HistogramSpec | undefined;
  #tracerFrom: TracerProvider | undefined;
  #tracer: Tracer | undefined;
  #meterFrom: MeterProvider | undefined;
  #histogram: Histogram | undefined;
  #sessionHistogram: Histogram | undefined;

  /** `histogram`: the operation duration; `session`: the session duration (mcp.md: Metrics). */
  constructor(options: TelemetryOptions, histogram?: HistogramSpec, session?: HistogramSpec) {
    this.#options = options;
    this.#histogramSpec = histogram;
    this.#sessionSpec = session;
  }

  get recordContent(): boolean {
    return this.#options.recordContent === true;
  }

  /** The tracer, or undefined while no tracer provider is registered. */
  tracer(): Tracer | undefined {
    let provider = this.#options.tracerProvider ?? trace.getTracerProvider();
    if (provider instanceof ProxyTracerProvider) provider = provider.getDelegate();
    if (provider === NOOP_TRACER_PROVIDER) return undefined;
    if (provider !== this.#tracerFrom) {
      this.#tracerFrom = provider;
      this.#tracer = provider.getTracer(SCOPE_NAME, PACKAGE_VERSION);
    }
    return this.#tracer;
  }

  /** The operation-duration histogram (seconds), or undefined while no meter provider is registered. */
  histogram(): Histogram | undefined {
    this.#resolveMeter();
    return this.#histogram;
  }

  /** The session-duration histogram (seconds), or undefined while no meter provider is registered. */
  sessionHistogram(): Histogram | undefined {
    this.#resolveMeter();
    return this.#sessionHistogram;
  }

  #resolveMeter(): void {
    const provider = this.#options.meterProvider ?? metrics.getMeterProvider();
    if (provider === this.#meterFrom) return;
    this.#meterFrom = provider;
    const meter = provider.getMeter(SCOPE_NAME, PACKAGE_VERSION);
    const create = (spec: HistogramSpec | undefined) =>
      spec === undefined || meter === NOOP_METER
        ? undefined
        : meter.createHistogram(spec.name, {
            description: spec.description,
            unit: 's',
            advice: { explicitBucketBoundaries: DURATION_BUCKETS },
          });
    this.#histogram = create(this.#histogramSpec);
    this.#sessionHistogram = create(this.#sessionSpec);
  }
}

/** The W3C Trace Context fields MCP reserves in `_meta` (2026-07-28 basic/index: _meta). */
export interface TraceFields {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * The trace fields of `context`: through the registered propagator (so baggage and the user's own propagation
 * settings apply), else straight from its span context (W3C Trace Context: version 00).
 */
export function injectTrace(context: Context): TraceFields {
  const fields: Record<string, string> = {};
  propagation.inject(context, fields);
  const out: TraceFields = {};
  if (typeof fields.traceparent === 'string') out.traceparent = fields.traceparent;
  else {
    const span = trace.getSpanContext(context);
    if (!span || !isSpanContextValid(span)) return out;
    const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
    out.traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
    const state = span.traceState?.serialize();
    if (state) out.tracestate = state;
  }
  if (typeof fields.tracestate === 'string' && fields.tracestate !== '') out.tracestate = fields.tracestate;
  if (typeof fields.baggage === 'string' && fields.baggage !== '') out.baggage = fields.baggage;
  return out;
}

/**
 * The remote parent a request carries (`_meta`, else the given headers), through the registered propagator,
 * else parsed as W3C Trace Context. A malformed value is no parent: the span starts a new trace.
 */
export function extractTrace(carrier: Readonly<Record<string, unknown>>): Context {
  const fields: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate', 'baggage']) {
    const value = carrier[key];
    if (typeof value === 'string' && value.length <= 8192) fields[key] = value;
  }
  if (fields.traceparent === undefined) return ROOT_CONTEXT;
  const extracted = propagation.extract(ROOT_CONTEXT, fields);
  if (trace.getSpanContext(extracted)) return extracted;
  const match = TRACEPARENT.exec(fields.traceparent);
  if (!match || match[1] === 'ff') return extracted;
  const spanContext = {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: Number.parseInt(match[4]!, 16),
    isRemote: true,
    ...(fields.tracestate ? { traceState: createTraceState(fields.tracestate) } : {}),
  };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(extracted, spanContext) : extracted;
}
