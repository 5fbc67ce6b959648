/**
 * The signal of a run started without one. Nothing can abort it (its controller is dropped at once), so a tool
 * call need not hand it to the client: watching it would cost an 'abort' listener per connection and a
 * bookkeeping entry per request for an event that cannot happen. It is still a signal of its own per run, so
 * a middleware that listens on `context.signal` and never stops listening holds nothing past the run.
 */
const inert = new WeakSet<AbortSignal>();

export function inertSignal(): AbortSignal {
  const signal = new AbortController().signal;
  inert.add(signal);
  return signal;
}

/** True for a run's own signal that nothing can abort. */
export function isInert(signal: AbortSignal): boolean {
  return inert.has(signal);
}
