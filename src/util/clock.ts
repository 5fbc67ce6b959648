/**
 * The global `performance` is an accessor on globalThis in Node (a lazy getter): each `performance.now()` read
 * through it is a global-accessor load and a getter call that optimized code does not fold away. Read once, at
 * the first use (not at import: the getter loads Node's perf_hooks), and kept; the hot paths (a request's clock,
 * an agent's call times) take the monotonic time from `monotonicMs`.
 */
let clock: Performance | undefined;

/** Milliseconds on the monotonic clock (`performance.now()`). */
export function monotonicMs(): number {
  clock ??= performance;
  return clock.now();
}

let lastMs = Number.NaN;
let lastIso = '';
let lastSecond = Number.NaN;
/** The ISO 8601 text of `lastSecond` up to and including the decimal point. */
let secondPrefix = '';

/**
 * The current time as an ISO 8601 string. Formatting a Date costs about a microsecond (more on a loaded
 * machine), and a turn's tool calls start within the same millisecond: calls in one millisecond share one
 * string, and milliseconds of one second share its formatted prefix (only the three digits change).
 */
export function isoNow(): string {
  return isoAt(Date.now());
}

/** `new Date(now).toISOString()`, from the same cache as `isoNow`. */
export function isoAt(now: number): string {
  if (now === lastMs) return lastIso;
  lastMs = now;
  const ms = ((now % 1000) + 1000) % 1000;
  const second = now - ms;
  if (second !== lastSecond) {
    lastSecond = second;
    const iso = new Date(second).toISOString();
    // "...SS.000Z": keep through the '.', whatever the year's width.
    secondPrefix = iso.slice(0, iso.length - 4);
  }
  lastIso = `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  return lastIso;
}
