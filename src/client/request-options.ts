/**
 * Per-request options, built once per client for the common call that sets none: every field a request needs
 * (timeouts, signal, progress, trace) in one object the engine only reads, so it can be shared.
 */
import type { Result } from '../jsonrpc/connection.js';
import { LocalError } from '../mcp/local-errors.js';
import { Method } from '../mcp/methods.js';
import { readResultType } from '../mcp/result-type.js';
import { checkCallToolResult } from './result-shapes.js';
import type { ClientHandlers, ClientOptions } from './types.js';
import type { CallOptions, WireRequestOptions } from './contracts.js';
import { copyTrace } from './trace.js';

/** The bounds of one request's MRTR input loop (src/client/input-loop.ts). */
export interface InputLoopOptions {
  handlers: ClientHandlers | undefined;
  maxRounds: number;
  maxTotalTimeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOTAL_MS = 10 * 60_000;

export class RequestDefaults {
  readonly #client: ClientOptions;
  readonly #plain: WireRequestOptions;
  /** `#plain` with the input loop's `onresult`, for a request whose result it finishes itself. */
  #plainFinished: WireRequestOptions | undefined;
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

  /**
   * The options of one request; a call that sets none shares one object per client. `onresult`: the one
   * function that finishes such requests' results (the input loop's), the same for every call.
   */
  for(options: CallOptions, onresult?: WireRequestOptions['onresult']): WireRequestOptions {
    const traceparent = options.traceparent ?? this.#client.traceparent?.();
    if (
      traceparent === undefined &&
      options.signal === undefined &&
      options.timeoutMs === undefined &&
      options.maxTotalTimeoutMs === undefined &&
      options.onprogress === undefined &&
      options.clientCapabilities === undefined
    ) {
      if (onresult === undefined) return this.#plain;
      if (this.#plainFinished?.onresult !== onresult)
        this.#plainFinished = Object.freeze({ ...this.#plain, onresult });
      return this.#plainFinished;
    }
    const requestOptions: WireRequestOptions = {
      timeoutMs: options.timeoutMs ?? this.#plain.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxTotalTimeoutMs: options.maxTotalTimeoutMs ?? this.#plain.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_MS,
    };
    if (options.signal) requestOptions.signal = options.signal;
    if (options.onprogress)
      requestOptions.onprogress = options.onprogress as (p: Record<string, unknown>) => void;
    // The client's own traceparent (ClientOptions.traceparent) when the call brings none.
    copyTrace(options.traceparent ? options : { traceparent }, requestOptions);
    if (options.clientCapabilities) requestOptions.clientCapabilities = options.clientCapabilities;
    if (onresult) requestOptions.onresult = onresult;
    return requestOptions;
  }

  /** The MRTR loop's bounds for a request with these options; shared when they set no total of their own. */
  inputLoop(options: CallOptions): InputLoopOptions {
    const maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? this.#inputLoop.maxTotalTimeoutMs;
    if (maxTotalTimeoutMs === this.#inputLoop.maxTotalTimeoutMs && options.handlers === undefined)
      return this.#inputLoop;
    const handlers = options.handlers ?? this.#inputLoop.handlers;
    return { handlers, maxRounds: this.#inputLoop.maxRounds, maxTotalTimeoutMs };
  }
}

/**
 * The check of a final result per method, built once per method and client: only MRTR methods may answer
 * input_required, and a tools/call result must carry its content (src/client/result-shapes.ts). A tools/call
 * may also answer with the tasks extension's CreateTaskResult (SEP-2663 Polymorphic Results: resultType
 * `task`), final like `complete`: the tasks client (agentforge/extensions/tasks) reads it.
 */
export class ResultChecks {
  readonly #server: () => string;
  readonly #checks = new Map<string, (result: Result) => Result>();

  /** `server` names the server in errors; read only when a result fails. */
  constructor(server: () => string) {
    this.#server = server;
  }

  for(method: string): (result: Result) => Result {
    let check = this.#checks.get(method);
    if (check === undefined) {
      const isToolCall = method === Method.ToolsCall;
      check = (result) => {
        const resultType = readResultType(result);
        if (resultType === 'task' && isToolCall) return result;
        if (resultType !== 'complete') {
          throw new LocalError(
            'protocol_error',
            `${this.#server()} answered ${method} with ${resultType}, which ${resultType === 'task' ? 'only tools/call' : 'only tools/call, prompts/get and resources/read'} may`,
          );
        }
        if (isToolCall) checkCallToolResult(result, this.#server);
        return result;
      };
      if (this.#checks.size < 256) this.#checks.set(method, check);
    }
    return check;
  }
}
