/**
 * The MRTR input loop as request middleware (2026-07-28 basic/patterns/mrtr): a request that answers
 * `input_required` has its input requests fulfilled by the host's handlers and is sent again with a new id, the
 * original params plus `inputResponses`, and `requestState` exactly as received. Each call keeps its own state,
 * so parallel calls never see each other's. `maxTotalTimeoutMs` bounds the whole exchange, the host's handlers
 * included: a user who never answers an elicitation does not hang the call. Only `input_required` loops: every
 * other result is final (`complete`, or a tools/call's CreateTaskResult, resultType `task`, SEP-2663) and goes
 * through the method's check. Each round goes through the middleware inside this one (the user's among them).
 */
import type { Result } from '../jsonrpc/connection.js';
import { LocalError } from '../mcp/local-errors.js';
import { readResultType } from '../mcp/result-type.js';
import type { Next } from '../util/compose.js';
import { answerInputRequest, readInputRequests } from './input.js';
import type { InputLoopOptions, RequestDefaults, ResultChecks } from './request-options.js';
import type { ClientMiddleware, ClientRequestContext } from './contracts.js';

export function inputLoop(defaults: RequestDefaults, checks: ResultChecks): ClientMiddleware {
  return (context, next) => {
    const { method, options } = context;
    const check = checks.for(method);
    if (!context.codec.answersInput(method)) return next(context).then(check);
    const loop = defaults.inputLoop(options);
    if (options.signal?.aborted)
      return Promise.reject(abortReason(options.signal, method, loop.maxTotalTimeoutMs));
    if (loop.maxTotalTimeoutMs <= 0) {
      return Promise.reject(
        new LocalError('timeout', `${method} did not complete within ${loop.maxTotalTimeoutMs} ms`),
      );
    }
    // The first round needs no timer of its own (the connection's request timer already honours
    // `maxTotalTimeoutMs`): a call that completes at once allocates nothing for the loop but this reaction.
    const startedAt = Date.now();
    return next(context).then((first) =>
      readResultType(first) !== 'input_required'
        ? check(first)
        : rounds(context, next, loop, startedAt, first, check),
    );
  };
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
