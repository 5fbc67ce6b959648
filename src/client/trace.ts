/** The caller's W3C Trace Context written into a request's `_meta`; both eras' codecs use it. */
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
