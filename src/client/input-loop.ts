/**
 * The MRTR input loop, the request pipeline's outermost layer (2026-07-28 basic/patterns/mrtr): a request that
 * answers `input_required` has its input requests fulfilled by the host's handlers and is sent again with a new id, the
 * original params plus `inputResponses`, and `requestState` exactly as received. Each call keeps its own state,
 * so parallel calls never see each other's. `maxTotalTimeoutMs` bounds the whole exchange, the host's handlers
 * included: a user who never answers an elicitation does not hang the call. Only `input_required` loops: every
 * other result is final (`complete`, or a tools/call's CreateTaskResult, resultType `task`, SEP-2663) and goes
 * through the method's check. Each round goes through the middleware inside this one (the user's among them).
 */
import type { Result, SentRequest } from '../jsonrpc/connection.js';
import { LocalError } from '../mcp/local-errors.js';
import { readResultType } from '../mcp/result-type.js';
import type { Next } from '../util/compose.js';
import { answerInputRequest, readInputRequests } from './input.js';
import type { InputLoopOptions, RequestDefaults, ResultChecks } from './request-options.js';
import type {
  CallOptions,
  ClientEraCodec,
  ClientRequestContext,
  Link,
  WireRequestOptions,
} from './contracts.js';
import { passesThrough } from './pipeline.js';

/** Sends a request finished by `onresult` (the connection calls it with the result; the tag is `context.options`). */
export type FinishedSend = (
  context: ClientRequestContext,
  onresult: NonNullable<WireRequestOptions['onresult']>,
) => Promise<Result>;

/** The `onresult` of the requests sent directly over one link with one codec. */
interface Finisher {
  readonly link: Link;
  readonly codec: ClientEraCodec;
  readonly onresult: NonNullable<WireRequestOptions['onresult']>;
}

/**
 * The outermost layer of the client's pipeline. `inner` is the rest of it (user middleware, session renewal,
 * retry, the codec's send). `direct`, given only when there is no user middleware, sends a request the inner
 * layers would pass straight through (src/client/pipeline.ts: passesThrough) with the loop's `onresult` for
 * its link: the connection finishes the result, and a call in flight holds nothing of the loop's but the
 * caller's options (the connection's tag). An MRTR round rebuilds the request's context from what the
 * connection kept: the params it was sent with, less the era's envelope (`ClientEraCodec.callerParams`).
 * Otherwise the loop reacts to the inner promise, so user middleware sees every round's result.
 */
export class InputLoop {
  readonly #defaults: RequestDefaults;
  readonly #checks: ResultChecks;
  readonly #inner: Next<ClientRequestContext, Result>;
  readonly #direct: FinishedSend | undefined;
  #finisher: Finisher | undefined;

  constructor(
    defaults: RequestDefaults,
    checks: ResultChecks,
    inner: Next<ClientRequestContext, Result>,
    direct?: FinishedSend,
  ) {
    this.#defaults = defaults;
    this.#checks = checks;
    this.#inner = inner;
    this.#direct = direct;
  }

  request(context: ClientRequestContext): Promise<Result> {
    const { method, options } = context;
    const answersInput = context.codec.answersInput(method);
    if (answersInput) {
      const loop = this.#defaults.inputLoop(options);
      if (options.signal?.aborted)
        return Promise.reject(abortReason(options.signal, method, loop.maxTotalTimeoutMs));
      if (loop.maxTotalTimeoutMs <= 0) {
        return Promise.reject(
          new LocalError('timeout', `${method} did not complete within ${loop.maxTotalTimeoutMs} ms`),
        );
      }
    }
    // Only a request that is not idempotent: a round's context is rebuilt with `idempotent: false`.
    if (this.#direct !== undefined && !context.idempotent && passesThrough(context))
      return this.#direct(context, this.#finisherFor(context.link, context.codec));
    const check = this.#checks.for(method);
    if (!answersInput) return this.#inner(context).then(check);
    // The first round needs no timer of its own (the connection's request timer already honours
    // `maxTotalTimeoutMs`).
    const startedAt = Date.now();
    return this.#inner(context).then((first) => this.#first(context, first, startedAt));
  }

  /**
   * The connection's `onresult` for requests sent by `direct` over `link` with `codec` (one function per link
   * and codec, made when either changes): the request's context as it was, from the connection's record of
   * it (`sent.tag` is the caller's options); the exchange's time counts from when the connection sent it (a
   * version retry's resend: from the resend).
   */
  #finisherFor(link: Link, codec: ClientEraCodec): Finisher['onresult'] {
    const finisher = this.#finisher;
    if (finisher !== undefined && finisher.link === link && finisher.codec === codec)
      return finisher.onresult;
    const onresult = (result: Result, sent: SentRequest): Result | Promise<Result> => {
      const { method } = sent;
      if (!this.#asksInput(codec, method, result)) return this.#checks.for(method)(result);
      const context: ClientRequestContext = {
        kind: 'request',
        method,
        params: codec.callerParams(sent.params),
        options: sent.tag as CallOptions,
        link,
        codec,
        idempotent: false,
        connecting: false,
      };
      return this.#rounds(context, result, sent.startedAt);
    };
    this.#finisher = { link, codec, onresult };
    return onresult;
  }

  /** A first round's result: final (checked), or the rounds that answer its `input_required`. */
  #first(context: ClientRequestContext, first: Result, startedAt: number): Result | Promise<Result> {
    if (!this.#asksInput(context.codec, context.method, first))
      return this.#checks.for(context.method)(first);
    return this.#rounds(context, first, startedAt);
  }

  #asksInput(codec: ClientEraCodec, method: string, result: Result): boolean {
    return codec.answersInput(method) && readResultType(result) === 'input_required';
  }

  #rounds(context: ClientRequestContext, first: Result, startedAt: number): Promise<Result> {
    const loop = this.#defaults.inputLoop(context.options);
    return rounds(context, this.#inner, loop, startedAt, first, this.#checks.for(context.method));
  }
}

/** The rounds after a first `input_required`, bounded as a whole by `maxTotalTimeoutMs`. */
async function rounds(
  context: ClientRequestContext,
  next: Next<ClientRequestContext, Result>,
  loop: InputLoopOptions,
  startedAt: number,
  first: Result,
  check: (result: Result) => Result,
): Promise<Result> {
  const { method, options } = context;
  const total = new AbortController();
  const timer = setTimeout(
    () =>
      total.abort(
        new LocalError('timeout', `${method} did not complete within ${loop.maxTotalTimeoutMs} ms`),
      ),
    Math.max(0, loop.maxTotalTimeoutMs - (Date.now() - startedAt)),
  );
  const signal = options.signal ? AbortSignal.any([options.signal, total.signal]) : total.signal;
  try {
    let result = first;
    for (let round = 1; ; round++) {
      if (round >= loop.maxRounds) {
        throw new LocalError(
          'too_many_rounds',
          `${method} still required input after ${loop.maxRounds} rounds`,
        );
      }
      const answering = answer(result.inputRequests, loop, method, signal);
      const inputResponses = await raceAbort(answering, signal, method, loop.maxTotalTimeoutMs);
      const params: Record<string, unknown> = { ...context.params };
      if (inputResponses) params.inputResponses = inputResponses;
      if (typeof result.requestState === 'string') params.requestState = result.requestState;
      const remaining = loop.maxTotalTimeoutMs - (Date.now() - startedAt);
      if (remaining <= 0 || signal.aborted) throw abortReason(signal, method, loop.maxTotalTimeoutMs);
      result = await next({ ...context, params, options: { ...options, maxTotalTimeoutMs: remaining } });
      if (readResultType(result) !== 'input_required') return check(result);
    }
  } finally {
    clearTimeout(timer);
  }
}

async function answer(
  inputRequests: unknown,
  loop: InputLoopOptions,
  relatedMethod: string,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const requests = readInputRequests(inputRequests);
  if (requests.length === 0) return undefined;
  const answers = await Promise.all(
    requests.map(async ([key, method, requestParams]) => {
      try {
        const context = { relatedMethod, signal, key };
        return [key, await answerInputRequest(loop.handlers, method, requestParams, context)] as const;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new LocalError('protocol_error', `cannot answer input request ${key} (${method}): ${reason}`, {
          cause: error,
        });
      }
    }),
  );
  return Object.fromEntries(answers);
}

/** Why a call's input loop stopped: the max total timeout, or the caller's own cancellation. */
function abortReason(signal: AbortSignal, method: string, maxTotalTimeoutMs: number): LocalError {
  const reason: unknown = signal.reason;
  if (reason instanceof LocalError) return reason;
  if (signal.aborted) return new LocalError('cancelled', `${method} cancelled`, { cause: reason });
  return new LocalError('timeout', `${method} did not complete within ${maxTotalTimeoutMs} ms`);
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (a handler that ignores its signal). */
function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  method: string,
  maxTotal: number,
): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal, method, maxTotal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal, method, maxTotal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
