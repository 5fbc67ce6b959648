/**
 * An outgoing request waiting for its response, as the connection tracks it: when it times out (a progress
 * report restarts the timeout, a total budget caps it) and the errors it can end with locally.
 */
import { NEVER, epochOf, clockMs } from './deadlines.js';
import { LocalError } from './errors.js';
import type { Params, RequestOptions, Result, SentRequest } from './incoming.js';

export interface Pending {
  readonly method: string;
  /** What it was sent with: `RequestOptions.onfailure` may send it again. */
  readonly params: Params;
  /**
   * Settles the caller's promise; a failure resolves it with a rejected promise (`rejectPending`). The promise's
   * `reject` is not kept: a function per request in flight, for the rare request that fails.
   */
  readonly resolve: (result: Result | Promise<Result>) => void;
  /** When it was sent (`clockMs` ms). */
  readonly startedAt: number;
  readonly options: RequestOptions | undefined;
  /** When it times out (`clockMs` ms); NEVER when it never does. Its cancellation signal is `options.signal`. */
  deadline: number;
  /** The caller's state for `onresult` / `onfailure` (Connection.requestTagged). */
  readonly tag: unknown;
}

let captured: Pending['resolve'] | undefined;

/**
 * The executor of a request's promise: one function for every request (an executor closing over the request
 * would be a closure and a context allocated per request). `capturedResolve()` hands over what it captured.
 */
export function captureResolve(resolve: Pending['resolve']): void {
  captured = resolve;
}

export function capturedResolve(): Pending['resolve'] {
  const resolve = captured as Pending['resolve'];
  captured = undefined;
  return resolve;
}

/** The request's timeout counted from now (a progress report restarts it), capped by its total budget. */
export function deadlineOf(pending: Pending, defaultTimeoutMs: number, now = clockMs()): number {
  const timeoutMs = pending.options?.timeoutMs ?? defaultTimeoutMs;
  const maxTotal = pending.options?.maxTotalTimeoutMs;
  const remainingTotal =
    maxTotal === undefined ? Number.POSITIVE_INFINITY : maxTotal - (now - pending.startedAt);
  const wait = Math.max(0, Math.min(timeoutMs, remainingTotal));
  return Number.isFinite(wait) ? now + wait : NEVER;
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

/** Sends a request again under a new id (the connection's own send), with the same tag. */
export type Resend = (
  method: string,
  params: Params,
  options: RequestOptions | undefined,
  tag: unknown,
) => Promise<Result>;

/** What `onresult` / `onfailure` see of a request: `resend` is a method, not a closure made per request. */
class Sent implements SentRequest {
  readonly method: string;
  readonly params: Params;
  readonly options: RequestOptions | undefined;
  readonly tag: unknown;
  readonly #startedAt: number;
  readonly #resend: Resend;

  constructor(
    method: string,
    params: Params,
    options: RequestOptions | undefined,
    tag: unknown,
    /** When it was sent (clockMs). */
    startedAt: number,
    resend: Resend,
  ) {
    this.method = method;
    this.params = params;
    this.options = options;
    this.tag = tag;
    this.#startedAt = startedAt;
    this.#resend = resend;
  }

  get startedAt(): number {
    return epochOf(this.#startedAt);
  }

  resend(params: Params, options?: RequestOptions): Promise<Result> {
    return this.#resend(this.method, params, options, this.tag);
  }
}

function sentRequest(pending: Pending, resend: Resend): SentRequest {
  return new Sent(pending.method, pending.params, pending.options, pending.tag, pending.startedAt, resend);
}

/** Fails the caller's promise: resolved with a rejected one, which it follows (the reason unchanged). */
function rejectPending(pending: Pending, error: unknown): void {
  pending.resolve(Promise.reject(error));
}

/** Ends a request taken off the table with its result, or with what its `onresult` makes of it. */
export function resolvePending(resend: Resend, pending: Pending, result: Result): void {
  const onresult = pending.options?.onresult;
  if (onresult === undefined) {
    pending.resolve(result);
    return;
  }
  try {
    pending.resolve(onresult(result, sentRequest(pending, resend)));
  } catch (thrown) {
    rejectPending(pending, thrown);
  }
}

/** Ends a request taken off the table with `error`, or with what its `onfailure` makes of it. */
export function failPending(resend: Resend, pending: Pending, error: unknown): void {
  const onfailure = pending.options?.onfailure;
  if (onfailure === undefined) {
    rejectPending(pending, error);
    return;
  }
  try {
    pending.resolve(onfailure(error, sentRequest(pending, resend)));
  } catch (thrown) {
    rejectPending(pending, thrown);
  }
}

/** A request that fails before it is sent (closed connection, aborted signal): asynchronously, as any other. */
export function failBeforeSending(
  error: unknown,
  method: string,
  params: Params,
  options: RequestOptions | undefined,
  tag: unknown,
  resend: Resend,
): Promise<Result> {
  const onfailure = options?.onfailure;
  if (onfailure === undefined) return Promise.reject(error);
  return new Promise<Result>((resolve) =>
    resolve(onfailure(error, new Sent(method, params, options, tag, clockMs(), resend))),
  );
}
