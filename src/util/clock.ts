let lastMs = -1;
let lastIso = '';

/**
 * The current time as an ISO 8601 string. Formatting a Date costs about a microsecond, and a turn's tool calls
 * start within the same millisecond: calls in one millisecond share one string.
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
