/**
 * Per-request options, built once per client for the common call that sets none: every field a request needs
 * (timeouts, signal, progress, trace) in one object the engine only reads, so it can be shared.
 */
import type { Result } from '../jsonrpc/connection.js';
import { LocalError } from '../jsonrpc/errors.js';
import { readResultType } from '../mcp/result-type.js';
import type { InputLoopOptions, StatelessRequestOptions } from './stateless.js';
import type { CallOptions, ClientOptions } from './types.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOTAL_MS = 10 * 60_000;

export class RequestDefaults {
  readonly #client: ClientOptions;
  readonly #plain: StatelessRequestOptions;
  readonly #inputLoop: InputLoopOptions;

  constructor(client: ClientOptions) {
    this.#client = client;
    const maxTotalTimeoutMs = client.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_MS;
    this.#plain = Object.freeze({ timeoutMs: client.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxTotalTimeoutMs });
    this.#inputLoop = Object.freeze({
      handlers: client.handlers,
      maxRounds: client.maxInputRounds ?? 10,
      maxTotalTimeoutMs,
    });
  }

  /** The options of one request; a call that sets none shares one object per client. */
  for(options: CallOptions): StatelessRequestOptions {
    const traceparent = options.traceparent ?? this.#client.traceparent?.();
    if (
      traceparent === undefined &&
      options.signal === undefined &&
      options.timeoutMs === undefined &&
      options.maxTotalTimeoutMs === undefined &&
      options.onprogress === undefined
    ) {
      return this.#plain;
    }
    const requestOptions: StatelessRequestOptions = {
      timeoutMs: options.timeoutMs ?? this.#plain.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxTotalTimeoutMs: options.maxTotalTimeoutMs ?? this.#plain.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_MS,
    };
    if (options.signal) requestOptions.signal = options.signal;
    if (options.onprogress)
      requestOptions.onprogress = options.onprogress as (p: Record<string, unknown>) => void;
    if (traceparent) requestOptions.traceparent = traceparent;
    return requestOptions;
  }

  /** The MRTR loop's bounds for a request built by `for`. */
  inputLoop(requestOptions: StatelessRequestOptions): InputLoopOptions {
    const maxTotalTimeoutMs = requestOptions.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_MS;
    if (maxTotalTimeoutMs === this.#inputLoop.maxTotalTimeoutMs) return this.#inputLoop;
    return { handlers: this.#inputLoop.handlers, maxRounds: this.#inputLoop.maxRounds, maxTotalTimeoutMs };
  }
}

/** A result check per method, kept once per method name: only MRTR methods may answer input_required. */
const completeChecks = new Map<string, (result: Result) => Result>();

export function completeOnly(method: string): (result: Result) => Result {
  let check = completeChecks.get(method);
  if (check === undefined) {
    check = (result) => {
      // Extension wiring point: a tasks CreateTaskResult (resultType task) is final, like complete.
      if (readResultType(result) === 'input_required') {
        throw new LocalError(
          'protocol_error',
          `${method} answered input_required, which only tools/call, prompts/get and resources/read may`,
        );
      }
      return result;
    };
    if (completeChecks.size < 256) completeChecks.set(method, check);
  }
  return check;
}
