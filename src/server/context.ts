import type { RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import { Method, Notification } from '../mcp/methods.js';
import type { RequestParams, RequestResult } from '../mcp/requests.js';
import { type Era, compareVersions } from '../mcp/revisions.js';
import {
  type ClientCapabilities,
  type Implementation,
  type InputRequest,
  type InputResponse,
  type JSONObject,
  type LoggingLevel,
  type ProgressToken,
  passesLogLevel,
} from '../mcp/types.js';
import type { RevisionCodec } from './codec.js';
import type { InputBackend } from './input.js';
import { principalOf } from './request-state.js';
import type { AuthInfo, HandlerContext, InputOptions, TaskContext } from './types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import { isRecord } from '../util/record.js';

/** Everything a request carries that handlers and operations need, whatever its era. */
export interface RequestScope {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly requestId: RequestId;
  readonly signal: AbortSignal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly extra: MessageExtra | undefined;
  readonly meta: JSONObject | undefined;
  /** The log threshold: a level, 'all' (legacy session that never set one), or undefined (send none). */
  readonly logLevel: LoggingLevel | 'all' | undefined;
  readonly inputRound: number;
  readonly input: InputBackend;
  /** Extension wiring point (tasks): the call's task controls, when it may become a task. */
  readonly task?: TaskContext;
  /** Sends a notification that belongs to this request (progress, log). */
  notify(method: string, params: JSONObject): Promise<void>;
  /**
   * Offered by a scope whose dispatcher reacts to the route's promise itself (2026-07-28, no request hook):
   * takes the step that finishes a result still being computed, and the route returns the computation's own
   * promise (settling with the step's input) instead of chaining one more reaction per request in flight.
   * False when the scope takes none.
   */
  defer?(step: FinishingStep): boolean;
}

/**
 * What turns a handler's settled outcome into the route's result (tools/call: its tool's ToolSteps). Given the
 * request's scope and codec, so one step may serve every request (a request in flight holds nothing of it).
 */
export interface FinishingStep {
  returned(value: unknown, scope: RequestScope, codec: RevisionCodec): MaybePromise<JSONObject>;
  failed(error: unknown, scope: RequestScope, codec: RevisionCodec): JSONObject;
}

/**
 * A request's scope with some members replaced (its task context, its input backend, its signal): everything
 * else reads through to the request's own. Subclasses override `signal` or `notify` and call `super` for the
 * request's behaviour.
 */
export abstract class DerivedScope implements RequestScope {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly requestId: RequestId;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly extra: MessageExtra | undefined;
  readonly meta: JSONObject | undefined;
  readonly logLevel: LoggingLevel | 'all' | undefined;
  readonly inputRound: number;
  readonly input: InputBackend;
  abstract readonly task: TaskContext;
  readonly #request: RequestScope;

  constructor(request: RequestScope, input: InputBackend = request.input) {
    this.#request = request;
    this.era = request.era;
    this.protocolVersion = request.protocolVersion;
    this.requestId = request.requestId;
    this.clientCapabilities = request.clientCapabilities;
    this.clientInfo = request.clientInfo;
    this.extra = request.extra;
    this.meta = request.meta;
    this.logLevel = request.logLevel;
    this.inputRound = request.inputRound;
    this.input = input;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  notify(method: string, params: JSONObject): Promise<void> {
    return this.#request.notify(method, params);
  }
}

type InputMethod = InputRequest['method'];

type ContextMethod = 'progress' | 'log' | 'elicit' | 'sample' | 'listRoots' | 'requestInput';

/** The default `inputRequests` key of each method: its short name and the call's ordinal. */
const SHORT_NAMES: Record<InputMethod, string> = {
  [Method.ElicitationCreate]: 'elicitation',
  [Method.SamplingCreateMessage]: 'sampling',
  [Method.RootsList]: 'roots',
};

export function progressTokenOf(meta: JSONObject | undefined): ProgressToken | undefined {
  const token = meta?.progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token))
    ? token
    : undefined;
}

/**
 * What a handler sees. A class, not an object literal: on Node 20 a literal with a getter costs about a
 * microsecond to create.
 */
class RequestHandlerContext implements HandlerContext {
  readonly #scope: RequestScope;
  #ordinals: Record<string, number> | undefined;
  /** The methods a handler took from it (`progress`, `log`, ...): most take none, so a call holds none. */
  #methods: Partial<Pick<HandlerContext, ContextMethod>> | undefined;

  // What the request carries is read through from its scope, not copied: a call makes one small object.
  constructor(scope: RequestScope) {
    this.#scope = scope;
  }

  get era(): Era {
    return this.#scope.era;
  }

  get protocolVersion(): string {
    return this.#scope.protocolVersion;
  }

  get requestId(): RequestId {
    return this.#scope.requestId;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.#scope.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#scope.clientInfo;
  }

  get authInfo(): unknown {
    return this.#scope.extra?.authInfo;
  }

  get extra(): MessageExtra | undefined {
    return this.#scope.extra;
  }

  get meta(): JSONObject | undefined {
    return this.#scope.meta;
  }

  get inputRound(): number {
    return this.#scope.inputRound;
  }

  get task(): TaskContext | undefined {
    return this.#scope.task;
  }

  get signal(): AbortSignal {
    return this.#scope.signal;
  }

  get auth(): AuthInfo | undefined {
    return isAuthInfo(this.authInfo) ? this.authInfo : undefined;
  }

  get principal(): string | undefined {
    return principalOf(this.authInfo);
  }

  // The methods are made on first use (most handlers call none of them) and then kept, so that
  // `const { log } = ctx` works and `ctx.log === ctx.log`.
  get progress(): HandlerContext['progress'] {
    const methods = (this.#methods ??= {});
    methods.progress ??= (progress, total, message) => this.#sendProgress(progress, total, message);
    return methods.progress;
  }

  get log(): HandlerContext['log'] {
    const methods = (this.#methods ??= {});
    methods.log ??= (level, data, logger) => this.#sendLog(level, data, logger);
    return methods.log;
  }

  get elicit(): HandlerContext['elicit'] {
    const methods = (this.#methods ??= {});
    methods.elicit ??= (params, options) => this.#ask(Method.ElicitationCreate, params, options);
    return methods.elicit;
  }

  get sample(): HandlerContext['sample'] {
    const methods = (this.#methods ??= {});
    methods.sample ??= (params, options) => this.#ask(Method.SamplingCreateMessage, params, options);
    return methods.sample;
  }

  get listRoots(): HandlerContext['listRoots'] {
    const methods = (this.#methods ??= {});
    methods.listRoots ??= (options) => this.#ask(Method.RootsList, {}, options);
    return methods.listRoots;
  }

  get requestInput(): HandlerContext['requestInput'] {
    const methods = (this.#methods ??= {});
    methods.requestInput ??= (requests) =>
      this.#scope.input.request(requests, this.#scope.signal) as Promise<
        Record<keyof typeof requests & string, InputResponse>
      >;
    return methods.requestInput;
  }

  async #sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    const scope = this.#scope;
    const progressToken = progressTokenOf(scope.meta);
    if (progressToken === undefined || scope.signal.aborted) return;
    const params: JSONObject = { progressToken, progress };
    if (total !== undefined) params.total = total;
    // 2025-03-26 added `message` to progress notifications.
    if (message !== undefined && compareVersions(scope.protocolVersion, '2025-03-26') >= 0)
      params.message = message;
    await scope.notify(Notification.Progress, params).catch(() => {});
  }

  async #sendLog(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const scope = this.#scope;
    const threshold = scope.logLevel;
    if (threshold === undefined || scope.signal.aborted) return;
    if (threshold !== 'all' && !passesLogLevel(level, threshold)) return;
    const params: JSONObject = logger === undefined ? { level, data } : { level, logger, data };
    await scope.notify(Notification.Message, params).catch(() => {});
  }

  /** One input request, typed by the request map; the backend checks the answer's shape for its method. */
  async #ask<M extends InputMethod>(
    method: M,
    params: RequestParams<M>,
    options: InputOptions | undefined,
  ): Promise<RequestResult<M>> {
    const request = { method, params } as InputRequest;
    const short = SHORT_NAMES[method];
    this.#ordinals ??= {};
    const ordinal = (this.#ordinals[short] ?? 0) + 1;
    this.#ordinals[short] = ordinal;
    const key = options?.key ?? `${short}-${ordinal}`;
    const answers = await this.#scope.input.request({ [key]: request }, this.#scope.signal);
    return answers[key] as RequestResult<M>;
  }
}

function isAuthInfo(value: unknown): value is AuthInfo {
  return isRecord(value) && Array.isArray(value.scopes) && isRecord(value.claims);
}

export function createHandlerContext(scope: RequestScope): HandlerContext {
  return new RequestHandlerContext(scope);
}
