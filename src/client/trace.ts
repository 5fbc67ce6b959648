/** The caller's W3C Trace Context: copied into a round trip's options, written into its `_meta` (both eras). */
import { MetaKey } from '../mcp/meta.js';
import type { WireRequestOptions } from './contracts.js';

/**
 * Writes `traceparent`, and `tracestate` and `baggage` beside it (W3C Trace Context: a tracestate without a
 * traceparent means nothing).
 */
export function writeTrace(meta: Record<string, unknown>, options: WireRequestOptions): void {
  if (!options.traceparent) return;
  meta[MetaKey.TraceParent] = options.traceparent;
  if (options.tracestate) meta[MetaKey.TraceState] = options.tracestate;
  if (options.baggage) meta[MetaKey.Baggage] = options.baggage;
}

/** W3C Trace Context fields of a request (`_meta.traceparent`, `tracestate`, `baggage`). */
interface TraceFields {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
  baggage?: string | undefined;
}

/** Copies the caller's trace into the options of one round trip (nothing without a traceparent). */
export function copyTrace(from: Readonly<TraceFields>, into: WireRequestOptions): void {
  if (!from.traceparent) return;
  into.traceparent = from.traceparent;
  if (from.tracestate) into.tracestate = from.tracestate;
  if (from.baggage) into.baggage = from.baggage;
}
