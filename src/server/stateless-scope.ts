/**
 * A 2026-07-28 request's scope: what its route and handler see of it, read through to the request, its `_meta`
 * and its context rather than copied, so a request in flight holds as little as it can.
 */
import type { JSONRPCRequest, RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import type { StatelessRequestContext } from '../mcp/request-context.js';
import type { ClientCapabilities, Implementation, JSONObject, LoggingLevel } from '../mcp/types.js';
import type { RevisionCodec } from './codec.js';
import type { FinishingStep } from './context.js';
import type { ServerCore } from './core.js';
import { type InputBackend, MrtrInputBackend } from './input.js';
import { NO_INPUTS, type RequestMeta } from './stateless-meta.js';
import type { EraRoute, StatelessRouteScope } from './routes.js';

/** 2026-07-28 basic/patterns/mrtr: only tools/call, prompts/get and resources/read may ask the client for input. */
const NO_INPUT_BACKEND: InputBackend = {
  request: () => Promise.reject(new Error('this method cannot ask the client for input (input_required)')),
};

/** What every request of one route and revision shares. */
export interface RouteBinding {
  readonly core: ServerCore;
  readonly codec: RevisionCodec;
  readonly route: EraRoute<StatelessRouteScope>;
}

/** An MRTR route's answers at hand and the round they belong to (basic/patterns/mrtr). */
export interface ScopeInputs {
  readonly answers: Record<string, unknown>;
  readonly round: number;
}

/** The inputs of an MRTR route's first try: no answers, round 0. */
export const FIRST_TRY: ScopeInputs = Object.freeze({ answers: NO_INPUTS, round: 0 });

/**
 * A 2026-07-28 request's scope. A class: on Node 20 an object literal with a getter is slow to create. What the
 * request itself holds is read through getters, not copied: a request in flight holds the scope.
 */
export class StatelessScope implements StatelessRouteScope {
  readonly #binding: RouteBinding;
  /** Shared by every request that repeats its `_meta` (MetaReader): read through, not copied. */
  readonly #meta: RequestMeta;
  /** Undefined on a route that cannot ask for input. */
  readonly #inputs: ScopeInputs | undefined;

  constructor(
    binding: RouteBinding,
    readonly request: JSONRPCRequest,
    meta: RequestMeta,
    readonly context: StatelessRequestContext,
    inputs: ScopeInputs | undefined,
  ) {
    this.#binding = binding;
    this.#meta = meta;
    this.#inputs = inputs;
  }

  get core(): ServerCore {
    return this.#binding.core;
  }

  get codec(): RevisionCodec {
    return this.#binding.codec;
  }

  get route(): EraRoute<StatelessRouteScope> {
    return this.#binding.route;
  }

  /** An MRTR route's answers at hand (basic/patterns/mrtr); undefined on any other route. */
  get answers(): Record<string, unknown> | undefined {
    return this.#inputs?.answers;
  }

  get inputRound(): number {
    return this.#inputs?.round ?? 0;
  }

  get protocolVersion(): string {
    return this.#meta.protocolVersion;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.#meta.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#meta.clientInfo;
  }

  /** 2026-07-28: no notifications/message unless this request set a logLevel. */
  get logLevel(): LoggingLevel | undefined {
    return this.#meta.logLevel;
  }

  /**
   * Made when a handler first asks for input (or a derived scope copies it): most calls never do, and a call in
   * flight then holds no backend.
   */
  get input(): InputBackend {
    if (this.#input === undefined) {
      const answers = this.answers;
      this.#input =
        answers === undefined ? NO_INPUT_BACKEND : new MrtrInputBackend(answers, this.clientCapabilities);
    }
    return this.#input;
  }

  /** The MRTR backend, if the handler asked for input. */
  get inputAsked(): MrtrInputBackend | undefined {
    return this.#input instanceof MrtrInputBackend ? this.#input : undefined;
  }

  #input: InputBackend | undefined;

  /**
   * The step a route handed over (RequestScope.defer): null while the dispatcher's own reaction will take one,
   * undefined when it will not (a request hook sees the finished result).
   */
  step: FinishingStep | null | undefined;

  defer(step: FinishingStep): boolean {
    if (this.step !== null) return false;
    this.step = step;
    return true;
  }

  get era(): 'stateless' {
    return 'stateless';
  }

  get params(): JSONObject | undefined {
    return this.request.params;
  }

  get requestId(): RequestId {
    return this.request.id;
  }

  get extra(): MessageExtra | undefined {
    return this.context.extra;
  }

  /** readMeta checked it is an object. */
  get meta(): JSONObject {
    return this.request.params?._meta as JSONObject;
  }

  /** Read lazily: the transports create their AbortController only when someone asks for the signal. */
  get signal(): AbortSignal {
    return this.context.signal;
  }

  async notify(method: string, params: JSONObject): Promise<void> {
    if (!this.context.signal.aborted) this.context.notify({ jsonrpc: '2.0', method, params });
  }
}
