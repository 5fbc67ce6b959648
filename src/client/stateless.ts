/**
 * The 2026-07-28 codec: every request carries its version, capabilities and identity in `_meta`
 * (basic/index: _meta), an unsupported version is retried with one from the server's list (basic/versioning),
 * and `input_required` results are answered and retried (basic/patterns/mrtr).
 */
import type { Connection, RequestOptions, Result } from '../jsonrpc/connection.js';
import { LocalError, RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { readResultType } from '../mcp/result-type.js';
import { statelessVersions } from '../mcp/revisions.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../mcp/types.js';
import { answerInputRequest, readInputRequests } from './input.js';
import type { ClientHandlers } from './types.js';

export interface StatelessRequestOptions extends RequestOptions {
  traceparent?: string;
}

export interface InputLoopOptions {
  handlers: ClientHandlers | undefined;
  maxRounds: number;
  maxTotalTimeoutMs: number;
}

/** The newest revision we speak that the server listed, if any. */
export function pickStatelessVersion(supported: unknown): string | undefined {
  if (!Array.isArray(supported)) return undefined;
  return statelessVersions().find((version) => supported.includes(version));
}

/** An UnsupportedProtocolVersionError's `supported` list, when the error is one. */
export function supportedVersionsOf(error: unknown): unknown[] | undefined {
  if (!(error instanceof RpcError) || error.code !== McpErrorCode.UnsupportedProtocolVersion)
    return undefined;
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported : undefined;
}

/**
 * Errors only a modern server sends (2026-07-28 basic/versioning: Backward Compatibility): version, header and
 * capability errors, and Invalid params complaining about the per-request `_meta`.
 */
export function isModernError(error: unknown): boolean {
  if (!(error instanceof RpcError)) return false;
  switch (error.code) {
    case McpErrorCode.UnsupportedProtocolVersion:
    case McpErrorCode.HeaderMismatch:
    case McpErrorCode.MissingRequiredClientCapability:
      return true;
    case McpErrorCode.InvalidParams: {
      const text = `${error.message} ${error.data === undefined ? '' : JSON.stringify(error.data)}`;
      return /_meta|io\.modelcontextprotocol\/|protocolVersion|clientCapabilities/i.test(text);
    }
    default:
      return false;
  }
}

export class StatelessCodec {
  readonly #clientInfo: Implementation;
  readonly #capabilities: ClientCapabilities;
  readonly #logLevel: LoggingLevel | undefined;
  #version: string;
  /**
   * The `_meta` every request carries when the caller adds none: built once per version and shared by all
   * requests (it is only serialised), so a call allocates no meta object of its own. Frozen: a transport that
   * passes messages by reference cannot change what later requests send.
   */
  #baseMeta: Readonly<Record<string, unknown>>;

  constructor(
    version: string,
    clientInfo: Implementation,
    capabilities: ClientCapabilities,
    logLevel?: LoggingLevel,
  ) {
    this.#version = version;
    this.#clientInfo = clientInfo;
    this.#capabilities = capabilities;
    this.#logLevel = logLevel;
    this.#baseMeta = Object.freeze(this.#buildMeta(undefined));
  }

  get version(): string {
    return this.#version;
  }

  set version(version: string) {
    if (version === this.#version) return;
    this.#version = version;
    this.#baseMeta = Object.freeze(this.#buildMeta(undefined));
  }

  #buildMeta(callerMeta: Record<string, unknown> | undefined): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      ...callerMeta,
      [MetaKey.ProtocolVersion]: this.#version,
      [MetaKey.ClientCapabilities]: this.#capabilities,
      [MetaKey.ClientInfo]: this.#clientInfo,
    };
    if (this.#logLevel) meta[MetaKey.LogLevel] = this.#logLevel;
    return meta;
  }

  withMeta(params: Record<string, unknown> | undefined, traceparent?: string): Record<string, unknown> {
    const callerMeta = params?._meta as Record<string, unknown> | undefined;
    // Object.assign, then a store: on Node 20 a spread with an extra property (`{ ...params, _meta }`)
    // takes a slow runtime path costing about a microsecond per call.
    const outgoing: Record<string, unknown> = Object.assign({}, params);
    if (callerMeta === undefined && !traceparent) {
      outgoing._meta = this.#baseMeta;
      return outgoing;
    }
    const meta = this.#buildMeta(callerMeta ?? {});
    if (traceparent) meta[MetaKey.TraceParent] = traceparent;
    outgoing._meta = meta;
    return outgoing;
  }

  /** One request; an UnsupportedProtocolVersionError listing a version we speak is retried once with it. */
  request(
    connection: Connection,
    method: string,
    params: Record<string, unknown> | undefined,
    options: StatelessRequestOptions = {},
  ): Promise<Result> {
    return connection
      .request(method, this.withMeta(params, options.traceparent), options)
      .catch((error: unknown) => {
        const next = pickStatelessVersion(supportedVersionsOf(error));
        if (next === undefined) throw error;
        this.version = next;
        return connection.request(method, this.withMeta(params, options.traceparent), options);
      });
  }

  /**
   * A request that may answer `input_required`: fulfil its input requests with the host's handlers and retry
   * with a new id, the original params plus `inputResponses`, and `requestState` exactly as received. Each
   * call keeps its own state, so parallel calls never see each other's. `maxTotalTimeoutMs` bounds the whole
   * exchange, the host's handlers included: a user who never answers an elicitation does not hang the call.
   * The first round needs no timer of its own (the connection's request timer already honours
   * `maxTotalTimeoutMs`): a call that completes at once allocates nothing for the input loop.
   */
  requestWithInput(
    connection: Connection,
    method: string,
    params: Record<string, unknown>,
    options: StatelessRequestOptions,
    loop: InputLoopOptions,
  ): Promise<Result> {
    if (options.signal?.aborted)
      return Promise.reject(abortReason(options.signal, method, loop.maxTotalTimeoutMs));
    if (loop.maxTotalTimeoutMs <= 0) {
      return Promise.reject(
        new LocalError('timeout', `${method} did not complete within ${loop.maxTotalTimeoutMs} ms`),
      );
    }
    const startedAt = Date.now();
    // Extension wiring point: only input_required loops; complete and a task's CreateTaskResult are final.
    const onFirst = (first: Result): Result | Promise<Result> =>
      readResultType(first) !== 'input_required'
        ? first
        : this.#inputLoop(connection, method, params, options, loop, startedAt, first);
    // One reaction for both outcomes (what `request` does, inlined): a call in flight holds one promise less.
    return connection
      .request(method, this.withMeta(params, options.traceparent), options)
      .then(onFirst, (error) => {
        const next = pickStatelessVersion(supportedVersionsOf(error));
        if (next === undefined) throw error;
        this.version = next;
        return connection.request(method, this.withMeta(params, options.traceparent), options).then(onFirst);
      });
  }

  /** The rounds after a first `input_required`, bounded as a whole by `maxTotalTimeoutMs`. */
  async #inputLoop(
    connection: Connection,
    method: string,
    params: Record<string, unknown>,
    options: StatelessRequestOptions,
    loop: InputLoopOptions,
    startedAt: number,
    first: Result,
  ): Promise<Result> {
    const total = new AbortController();
    const remaining = loop.maxTotalTimeoutMs - (Date.now() - startedAt);
    const timer = setTimeout(
      () =>
        total.abort(
          new LocalError('timeout', `${method} did not complete within ${loop.maxTotalTimeoutMs} ms`),
        ),
      Math.max(0, remaining),
    );
    const signal = options.signal ? AbortSignal.any([options.signal, total.signal]) : total.signal;
    try {
      return await this.#rounds(connection, method, params, options, loop, signal, startedAt, first);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Rounds 2..maxRounds, starting from the first round's `input_required` result. */
  async #rounds(
    connection: Connection,
    method: string,
    params: Record<string, unknown>,
    options: StatelessRequestOptions,
    loop: InputLoopOptions,
    signal: AbortSignal,
    startedAt: number,
    first: Result,
  ): Promise<Result> {
    let result = first;
    for (let round = 1; ; round++) {
      if (round >= loop.maxRounds) {
        throw new LocalError(
          'too_many_rounds',
          `${method} still required input after ${loop.maxRounds} rounds`,
        );
      }
      const answering = this.#answer(result.inputRequests, loop.handlers, method, signal);
      const inputResponses = await raceAbort(answering, signal, method, loop.maxTotalTimeoutMs);
      const roundParams: Record<string, unknown> = { ...params };
      if (inputResponses) roundParams.inputResponses = inputResponses;
      if (typeof result.requestState === 'string') roundParams.requestState = result.requestState;
      const remaining = loop.maxTotalTimeoutMs - (Date.now() - startedAt);
      if (remaining <= 0 || signal.aborted) throw abortReason(signal, method, loop.maxTotalTimeoutMs);
      result = await this.request(connection, method, roundParams, {
        ...options,
        maxTotalTimeoutMs: Math.min(options.maxTotalTimeoutMs ?? remaining, remaining),
      });
      if (readResultType(result) !== 'input_required') return result;
    }
  }

  async #answer(
    inputRequests: unknown,
    handlers: ClientHandlers | undefined,
    relatedMethod: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const requests = readInputRequests(inputRequests);
    if (requests.length === 0) return undefined;
    const answers = await Promise.all(
      requests.map(async ([key, method, requestParams]) => {
        try {
          return [
            key,
            await answerInputRequest(handlers, method, requestParams, { relatedMethod, signal }),
          ] as const;
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new LocalError(
            'protocol_error',
            `cannot answer input request ${key} (${method}): ${reason}`,
            {
              cause: error,
            },
          );
        }
      }),
    );
    return Object.fromEntries(answers);
  }
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
