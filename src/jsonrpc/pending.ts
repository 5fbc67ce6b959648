/**
 * An outgoing request waiting for its response, as the connection tracks it: when it times out (a progress
 * report restarts the timeout, a total budget caps it) and the errors it can end with locally.
 */
import { NEVER, epochOf, clockMs } from './deadlines.js';
import { LocalError } from './errors.js';
import type { Params, RequestOptions, Result, SentRequest } from './incoming.js';
import { sharedMetaOf } from './serialise.js';

/**
 * What many requests have in common, shared by them: their method, options and tag, a `serialisedOnce` `_meta`
 * ending their params (a 2026-07-28 client's, the same in every request), and the ms they were sent in (a burst
 * is sent in one: a request in flight keeps no time of its own).
 */
export interface RequestKind {
  readonly method: string;
  readonly options: RequestOptions | undefined;
  /** The caller's state for `onresult` / `onfailure` (Connection.requestTagged). */
  readonly tag: unknown;
  /** The params' `sharedMetaOf`: left out of the text `Pending.sent` keeps, put back when it is parsed. */
  readonly meta: object | undefined;
  /**
   * When its requests were sent (`clockMs` ms). A request's deadline is not kept: it follows from this and the
   * options (`deadlineOf`) unless a progress report moved it (`DeadlineTimer.move`). Its cancellation signal is
   * `options.signal`.
   */
  readonly startedAt: number;
}

export interface Pending {
  readonly kind: RequestKind;
  /**
   * What it was sent with: `RequestOptions.onfailure` / `onresult` may send it again (MRTR's input_required, a
   * rejected protocol version). The params' JSON text (less `kind.meta`) when the transport wrote them at once
   * and handed it back (`Transport.post`): what went on the wire, whatever the caller does to its objects
   * afterwards, and smaller than the objects. Otherwise the params themselves (a transport that passes objects
   * or serialises later).
   */
  sent: string | Params;
  /**
   * Settles the caller's promise; a failure resolves it with a rejected promise (`rejectPending`). The promise's
   * `reject` is not kept: a function per request in flight, for the rare request that fails.
   */
  readonly resolve: (result: Result | Promise<Result>) => void;
}

/**
 * Gives each request its kind: the last one made while requests keep the same method, options, tag and shared
 * `_meta` (a burst of calls, a client's requests without options of their own); that kind stays referenced until
 * a request of another kind is sent.
 */
export class RequestKinds {
  #last: RequestKind | undefined;

  /** The kind of a request sent at `startedAt` (`clockMs`). */
  kindOf(
    method: string,
    params: Params,
    options: RequestOptions | undefined,
    tag: unknown,
    startedAt: number,
  ): RequestKind {
    const meta = sharedMetaOf(params);
    const last = this.#last;
    if (
      last?.startedAt === startedAt &&
      last.method === method &&
      last.options === options &&
      last.tag === tag &&
      last.meta === meta
    )
      return last;
    const kind = { method, options, tag, meta, startedAt };
    this.#last = kind;
    return kind;
  }
}

/** The params a request was sent with, from what `Pending.sent` kept: a new object for a text. */
export function paramsOf(kind: RequestKind, sent: string | Params): Params {
  if (typeof sent !== 'string') return sent;
  const params = JSON.parse(sent) as Record<string, unknown>;
  if (kind.meta !== undefined) params._meta = kind.meta;
  return params;
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

/**
 * The deadline of a request sent at `startedAt`: its timeout counted from `now` (a progress report restarts it),
 * capped by its total budget.
 */
export function deadlineOf(
  options: RequestOptions | undefined,
  startedAt: number,
  defaultTimeoutMs: number,
  now = clockMs(),
): number {
  const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
  const maxTotal = options?.maxTotalTimeoutMs;
  const remainingTotal = maxTotal === undefined ? Number.POSITIVE_INFINITY : maxTotal - (now - startedAt);
  const wait = Math.max(0, Math.min(timeoutMs, remainingTotal));
  return Number.isFinite(wait) ? now + wait : NEVER;
}

/** Whether requests with these options time out at all (their `deadlineOf` is not NEVER): options alone decide. */
export function hasDeadline(options: RequestOptions | undefined, defaultTimeoutMs: number): boolean {
  const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
  return Number.isFinite(Math.min(timeoutMs, options?.maxTotalTimeoutMs ?? Number.POSITIVE_INFINITY));
}

/** The deadline a request got when it was sent: its `deadlineOf` then. */
export function sentDeadline(pending: Pending, defaultTimeoutMs: number): number {
  return deadlineOf(pending.kind.options, pending.kind.startedAt, defaultTimeoutMs, pending.kind.startedAt);
}

export function timeoutError(pending: Pending, now: number, defaultTimeoutMs: number): LocalError {
  return new LocalError(
    'timeout',
    `request ${pending.kind.method} timed out after ${now - pending.kind.startedAt} ms`,
    {
      data: {
        timeoutMs: pending.kind.options?.timeoutMs ?? defaultTimeoutMs,
        maxTotalTimeoutMs: pending.kind.options?.maxTotalTimeoutMs,
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

/**
 * What `onresult` / `onfailure` see of a request: `resend` is a method, not a closure made per request; the
 * params are made from what was kept when first read.
 */
class Sent implements SentRequest {
  readonly #kind: RequestKind;
  #sent: string | Params;
  readonly #resend: Resend;

  constructor(kind: RequestKind, sent: string | Params, resend: Resend) {
    this.#kind = kind;
    this.#sent = sent;
    this.#resend = resend;
  }

  get method(): string {
    return this.#kind.method;
  }

  get params(): Params {
    if (typeof this.#sent === 'string') this.#sent = paramsOf(this.#kind, this.#sent);
    return this.#sent;
  }

  get options(): RequestOptions | undefined {
    return this.#kind.options;
  }

  get tag(): unknown {
    return this.#kind.tag;
  }

  get startedAt(): number {
    return epochOf(this.#kind.startedAt);
  }

  resend(params: Params, options?: RequestOptions): Promise<Result> {
    return this.#resend(this.#kind.method, params, options, this.#kind.tag);
  }
}

function sentRequest(pending: Pending, resend: Resend): SentRequest {
  return new Sent(pending.kind, pending.sent, resend);
}

/** Fails the caller's promise: resolved with a rejected one, which it follows (the reason unchanged). */
function rejectPending(pending: Pending, error: unknown): void {
  pending.resolve(Promise.reject(error));
}

/** Ends a request taken off the table with its result, or with what its `onresult` makes of it. */
export function resolvePending(resend: Resend, pending: Pending, result: Result): void {
  const onresult = pending.kind.options?.onresult;
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
  const onfailure = pending.kind.options?.onfailure;
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
    resolve(
      onfailure(
        error,
        new Sent({ method, options, tag, meta: undefined, startedAt: clockMs() }, params, resend),
      ),
    ),
  );
}
