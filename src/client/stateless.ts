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
  version: string;
  readonly #clientInfo: Implementation;
  readonly #capabilities: ClientCapabilities;
  readonly #logLevel: LoggingLevel | undefined;

  constructor(
    version: string,
    clientInfo: Implementation,
    capabilities: ClientCapabilities,
    logLevel?: LoggingLevel,
  ) {
    this.version = version;
    this.#clientInfo = clientInfo;
    this.#capabilities = capabilities;
    this.#logLevel = logLevel;
  }

  withMeta(params: Record<string, unknown> | undefined, traceparent?: string): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      ...(params?._meta as Record<string, unknown> | undefined),
      [MetaKey.ProtocolVersion]: this.version,
      [MetaKey.ClientCapabilities]: this.#capabilities,
      [MetaKey.ClientInfo]: this.#clientInfo,
    };
    if (this.#logLevel) meta[MetaKey.LogLevel] = this.#logLevel;
    if (traceparent) meta[MetaKey.TraceParent] = traceparent;
    return { ...params, _meta: meta };
  }

  /** One request; an UnsupportedProtocolVersionError listing a version we speak is retried once with it. */
  async request(
    connection: Connection,
    method: string,
    params: Record<string, unknown> | undefined,
    options: StatelessRequestOptions = {},
  ): Promise<Result> {
    try {
      return await connection.request(method, this.withMeta(params, options.traceparent), options);
    } catch (error) {
      const next = pickStatelessVersion(supportedVersionsOf(error));
      if (next === undefined) throw error;
      this.version = next;
      return connection.request(method, this.withMeta(params, options.traceparent), options);
    }
  }

  /**
   * A request that may answer `input_required`: fulfil its input requests with the host's handlers and retry
   * with a new id, the original params plus `inputResponses`, and `requestState` exactly as received. Each
   * call keeps its own state, so parallel calls never see each other's. `maxTotalTimeoutMs` bounds the whole
   * exchange, the host's handlers included: a user who never answers an elicitation does not hang the call.
   */
  async requestWithInput(
    connection: Connection,
    method: string,
    params: Record<string, unknown>,
    options: StatelessRequestOptions,
    loop: InputLoopOptions,
  ): Promise<Result> {
    const total = new AbortController();
    const timer = setTimeout(
      () =>
        total.abort(
          new LocalError('timeout', `${method} did not complete within ${loop.maxTotalTimeoutMs} ms`),
        ),
      loop.maxTotalTimeoutMs,
    );
    const signal = options.signal ? AbortSignal.any([options.signal, total.signal]) : total.signal;
    try {
      return await this.#rounds(connection, method, params, options, loop, signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async #rounds(
    connection: Connection,
    method: string,
    params: Record<string, unknown>,
    options: StatelessRequestOptions,
    loop: InputLoopOptions,
    signal: AbortSignal,
  ): Promise<Result> {
    const startedAt = Date.now();
    let roundParams = params;
    for (let round = 1; ; round++) {
      const remaining = loop.maxTotalTimeoutMs - (Date.now() - startedAt);
      if (remaining <= 0 || signal.aborted) throw abortReason(signal, method, loop.maxTotalTimeoutMs);
      const result = await this.request(connection, method, roundParams, {
        ...options,
        maxTotalTimeoutMs: Math.min(options.maxTotalTimeoutMs ?? remaining, remaining),
      });
      if (readResultType(result) === 'complete') return result;
      if (round >= loop.maxRounds) {
        throw new LocalError(
          'too_many_rounds',
          `${method} still required input after ${loop.maxRounds} rounds`,
        );
      }
      const answering = this.#answer(result.inputRequests, loop.handlers, method, signal);
      const inputResponses = await raceAbort(answering, signal, method, loop.maxTotalTimeoutMs);
      roundParams = { ...params };
      if (inputResponses) roundParams.inputResponses = inputResponses;
      if (typeof result.requestState === 'string') roundParams.requestState = result.requestState;
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
