/**
 * An outgoing request waiting for its response, as the connection tracks it: when it times out (a progress
 * report restarts the timeout, a total budget caps it) and the errors it can end with locally.
 */
import { LocalError } from './errors.js';
import type { RequestOptions, Result } from './incoming.js';

export interface Pending {
  readonly method: string;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
  readonly startedAt: number;
  readonly options: RequestOptions | undefined;
  /** When it times out (epoch ms); Infinity when it never does. */
  deadline: number;
  /** The caller's cancellation signal, watched while the request is pending. */
  readonly signal: AbortSignal | undefined;
}

/** The request's timeout counted from now (a progress report restarts it), capped by its total budget. */
export function deadlineOf(pending: Pending, defaultTimeoutMs: number, now = Date.now()): number {
  const timeoutMs = pending.options?.timeoutMs ?? defaultTimeoutMs;
  const maxTotal = pending.options?.maxTotalTimeoutMs;
  const remainingTotal =
    maxTotal === undefined ? Number.POSITIVE_INFINITY : maxTotal - (now - pending.startedAt);
  const wait = Math.max(0, Math.min(timeoutMs, remainingTotal));
  return Number.isFinite(wait) ? now + wait : Number.POSITIVE_INFINITY;
}

export function timeoutError(pending: Pending, now: number, defaultTimeoutMs: number): LocalError {
  return new LocalError(
    'timeout',
    `request ${pending.method} timed out after ${now - pending.startedAt} ms`,
    {
      data: {
        timeoutMs: pending.options?.timeoutMs ?? defaultTimeoutMs,
        maxTotalTimeoutMs: pending.options?.maxTotalTimeoutMs,
      },
    },
  );
}

export function cancelledError(method: string, reason: unknown): LocalError {
  const detail = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
  return new LocalError('cancelled', `request ${method} cancelled: ${detail}`, { cause: reason });
}
