/**
 * 2026-07-28 (stateless): one request in, one response out. Version, client identity and capabilities travel
 * in every request's `_meta` (basic/index: _meta); nothing is remembered between requests except what a sealed
 * `requestState` carries.
 */
import { RpcError, toWireError } from '../jsonrpc/errors.js';
import type { JSONRPCRequest, JSONRPCResponse } from '../jsonrpc/messages.js';
import { McpErrorCode, invalidParams } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { Method } from '../mcp/methods.js';
import type { StatelessRequestContext } from '../mcp/request-context.js';
import type { JSONObject } from '../mcp/types.js';
import type { RevisionCodec } from './codec.js';
import type { ServerCore } from './core.js';
import { InputRequiredSignal, type MrtrInputBackend } from './input.js';
import { type MaybePromise, isPromise } from '../util/maybe-promise.js';
import { MetaReader, bindingOf, readInputs } from './stateless-meta.js';
import { FIRST_TRY, type RouteBinding, type ScopeInputs, StatelessScope } from './stateless-scope.js';
import type { IncomingRequest } from './request-hook.js';
import type { EraRoute, RouteTable, StatelessRouteScope } from './routes.js';
import { isRecord } from '../util/record.js';

/** True when a request belongs on the stateless path: it carries a per-request protocol version, or is discover. */
export function isStatelessRequest(message: JSONRPCRequest): boolean {
  if (message.method === Method.Discover) return true;
  const meta = message.params?._meta;
  return isRecord(meta) && meta[MetaKey.ProtocolVersion] !== undefined;
}

/**
 * Where the response of a request still running when `serve` returns goes (the stdio channel's entry for it).
 * `respond` must not throw.
 */
export interface ResponseSink extends StatelessRequestContext {
  respond(response: JSONRPCResponse): void;
}

export class StatelessDispatcher {
  readonly #core: ServerCore;
  readonly #routes: RouteTable;
  readonly #meta = new MetaReader();
  /** One per route and codec, shared by every request they serve: a scope holds one field for the three. */
  readonly #bindings = new WeakMap<EraRoute<StatelessRouteScope>, RouteBinding>();
  /**
   * The reaction to a served route's promise, bound to its scope (whose context is the sink) per request: two
   * bound functions hold less than a closure pair and the context they share (bench/held-retained-server.mjs).
   */
  readonly #fulfilled: (this: StatelessScope, value: unknown) => void;
  readonly #rejected: (this: StatelessScope, error: unknown) => void;

  constructor(core: ServerCore, routes: RouteTable) {
    this.#core = core;
    this.#routes = routes;
    const dispatcher = this;
    this.#fulfilled = function (value) {
      deliver(this.context as ResponseSink, dispatcher.#finish(this, value, true));
    };
    this.#rejected = function (error) {
      deliver(this.context as ResponseSink, dispatcher.#finish(this, error, false));
    };
  }

  /**
   * The response, or a promise of it. A request whose steps are all synchronous (a sync tool handler, a
   * compiled validator) is answered before this returns: no promise, no microtask, nothing left to survive a
   * young-generation GC while the next message is parsed.
   */
  handle(request: JSONRPCRequest, context: StatelessRequestContext): MaybePromise<JSONRPCResponse> {
    if (this.#core.aroundRequest !== undefined) return this.#hooked(request, context);
    let scope: MaybePromise<StatelessScope>;
    try {
      scope = this.#scope(request, context);
    } catch (error) {
      return this.#failed(request, error);
    }
    if (!isPromise(scope)) return this.#run(scope, undefined) as MaybePromise<JSONRPCResponse>;
    return scope.then(
      (claimed) => this.#run(claimed, undefined) as MaybePromise<JSONRPCResponse>,
      (error: unknown) => this.#failed(request, error),
    );
  }

  /**
   * As `handle`, for a channel that keeps an entry per request in flight anyway (stdio): the response when it
   * is ready at once, else undefined and `sink.respond` gets it later. A request still running then holds one
   * reaction of the dispatcher's, not also a promise the channel would react to.
   */
  serve(request: JSONRPCRequest, sink: ResponseSink): JSONRPCResponse | undefined {
    if (this.#core.aroundRequest === undefined) {
      let scope: MaybePromise<StatelessScope> | undefined;
      try {
        scope = this.#scope(request, sink);
      } catch (error) {
        return this.#failed(request, error);
      }
      if (!isPromise(scope)) return this.#run(scope, sink) as JSONRPCResponse | undefined;
      // A one-time requestState being claimed (its store may be remote): run once it is, never claimed twice.
      scope.then(
        (claimed) => {
          const response = this.#run(claimed, sink) as JSONRPCResponse | undefined;
          if (response !== undefined) sink.respond(response);
        },
        (error: unknown) => sink.respond(this.#failed(request, error)),
      );
      return undefined;
    }
    // With a hook: chained as it comes.
    const response = this.handle(request, sink);
    if (!isPromise(response)) return response;
    // handle answers every failure with an error response: the promise never rejects.
    response.then((answer) => sink.respond(answer));
    return undefined;
  }

  /** With a request hook: it sees the settled result of `next`, so the steps are chained for it. */
  #hooked(request: JSONRPCRequest, context: StatelessRequestContext): MaybePromise<JSONRPCResponse> {
    let result: MaybePromise<JSONObject>;
    try {
      const hook = this.#core.aroundRequest!;
      result = hook(incomingRequest(request, context), () => this.#dispatch(request, context));
    } catch (error) {
      return this.#failed(request, error);
    }
    if (!isPromise(result)) return { jsonrpc: '2.0', id: request.id, result };
    return Promise.resolve(result).then(
      (value): JSONRPCResponse => ({ jsonrpc: '2.0', id: request.id, result: value }),
      (error: unknown) => this.#failed(request, error),
    );
  }

  /** The settled result for a request hook's `next`. */
  #dispatch(request: JSONRPCRequest, context: StatelessRequestContext): MaybePromise<JSONObject> {
    const scope = this.#scope(request, context);
    if (isPromise(scope)) return scope.then((claimed) => this.#result(claimed));
    return this.#result(scope);
  }

  #result(scope: StatelessScope): MaybePromise<JSONObject> {
    let result: MaybePromise<JSONObject>;
    try {
      result = scope.route.handle(scope);
    } catch (error) {
      return this.#settleFailure(scope, error);
    }
    if (!isPromise(result)) return this.#settle(scope, result);
    if (scope.answers === undefined) return result;
    return result.then(
      (value) => this.#settle(scope, value),
      (error: unknown) => this.#settleFailure(scope, error),
    );
  }

  /**
   * Without a hook: a route still running gets one reaction that settles its MRTR input, wraps the response
   * and (with a sink) delivers it, where a chain of those steps held a promise and a reaction per step for
   * every request in flight. Undefined when the sink gets the response.
   */
  #run(scope: StatelessScope, sink: ResponseSink | undefined): MaybePromise<JSONRPCResponse> | undefined {
    let result: MaybePromise<JSONObject>;
    try {
      scope.step = null;
      result = scope.route.handle(scope);
    } catch (error) {
      return this.#respondFailure(scope, error);
    }
    if (!isPromise(result)) return this.#respond(scope, result);
    if (sink === undefined) {
      return result.then(
        (value) => this.#finish(scope, value, true),
        (error: unknown) => this.#finish(scope, error, false),
      );
    }
    // The scope was made with the sink as its context.
    result.then(this.#fulfilled.bind(scope), this.#rejected.bind(scope));
    return undefined;
  }

  /** The response once the route's promise settled: through the step the route handed over, if it did. */
  #finish(scope: StatelessScope, outcome: unknown, ok: boolean): MaybePromise<JSONRPCResponse> {
    const step = scope.step;
    scope.step = undefined;
    if (!step) return ok ? this.#respond(scope, outcome as JSONObject) : this.#respondFailure(scope, outcome);
    let finished: MaybePromise<JSONObject>;
    try {
      finished = ok ? step.returned(outcome, scope, scope.codec) : step.failed(outcome, scope, scope.codec);
    } catch (error) {
      return this.#respondFailure(scope, error);
    }
    if (!isPromise(finished)) return this.#respond(scope, finished);
    return finished.then(
      (value) => this.#respond(scope, value),
      (error: unknown) => this.#respondFailure(scope, error),
    );
  }

  #respond(scope: StatelessScope, value: JSONObject): JSONRPCResponse {
    try {
      return { jsonrpc: '2.0', id: scope.requestId, result: this.#settle(scope, value) };
    } catch (error) {
      return this.#failed(scope.request, error);
    }
  }

  #respondFailure(scope: StatelessScope, error: unknown): JSONRPCResponse {
    try {
      return { jsonrpc: '2.0', id: scope.requestId, result: this.#settleFailure(scope, error) };
    } catch (thrown) {
      return this.#failed(scope.request, thrown);
    }
  }

  #failed(request: JSONRPCRequest, error: unknown): JSONRPCResponse {
    if (error instanceof InputRequiredSignal) {
      // Only the three MRTR methods install a backend that can throw this; anything else is a server bug.
      return {
        jsonrpc: '2.0',
        id: request.id,
        error: { code: McpErrorCode.InternalError, message: 'Internal error' },
      };
    }
    if (!(error instanceof RpcError)) this.#core.logger.debug(`stateless ${request.method} failed`, error);
    return { jsonrpc: '2.0', id: request.id, error: toWireError(error) };
  }

  /**
   * The request's scope, once its `_meta` and route are known and an MRTR retry's answers read; a promise while
   * a one-time requestState is claimed.
   */
  #scope(request: JSONRPCRequest, context: StatelessRequestContext): MaybePromise<StatelessScope> {
    const meta = this.#meta.read(request.params);
    const route = this.#routes.stateless.get(request.method);
    // initialize, ping, logging/setLevel, resources/(un)subscribe do not exist in this era (2026-07-28).
    if (!route) throw new RpcError(McpErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const binding = this.#binding(route, this.#core.codec(meta.protocolVersion));
    const core = this.#core;
    const params = request.params;
    if (!route.inputRequired) return new StatelessScope(binding, request, meta, context, undefined);
    // A first try (no answers, no state): nothing to read.
    if (params?.inputResponses === undefined && params?.requestState === undefined)
      return new StatelessScope(binding, request, meta, context, FIRST_TRY);
    const { available, round, oneTime } = readInputs(core, request.method, params, context.extra);
    const inputs: ScopeInputs = { answers: available, round };
    if (!oneTime) return new StatelessScope(binding, request, meta, context, inputs);
    // A one-time state is claimed before the handler sees its answers: a replay never runs it twice.
    return core.sealer.claim(oneTime).then((fresh) => {
      if (!fresh) throw invalidParams('Invalid requestState');
      return new StatelessScope(binding, request, meta, context, inputs);
    });
  }

  #binding(route: EraRoute<StatelessRouteScope>, codec: RevisionCodec): RouteBinding {
    const cached = this.#bindings.get(route);
    if (cached !== undefined && cached.codec === codec) return cached;
    const binding: RouteBinding = { core: this.#core, codec, route };
    this.#bindings.set(route, binding);
    return binding;
  }

  /** A handler that threw: InputRequiredSignal is the input_required answer on an MRTR route; else rethrown. */
  #settleFailure(scope: StatelessScope, error: unknown): JSONObject {
    if (!(error instanceof InputRequiredSignal) || scope.answers === undefined) throw error;
    return this.#settle(scope, undefined);
  }

  /** A route's result; on an MRTR route, input_required when the handler asked for input it lacks. */
  #settle(scope: StatelessScope, result: JSONObject | undefined): JSONObject {
    if (scope.answers === undefined) return result as JSONObject;
    // A handler that never asked for input made no backend: nothing is missing.
    const missing = scope.inputAsked?.missing;
    if (!missing && result) return result;
    const input = scope.input as MrtrInputBackend;
    // 2026-07-28 basic/patterns/mrtr: ask for what is missing; carry what was already answered in the state.
    const { request, context } = scope;
    const binding = bindingOf(request.method, request.params, context.extra);
    const requestState = this.#core.sealer.seal(binding, {
      round: scope.inputRound + 1,
      responses: input.consumed,
    });
    return scope.codec.finish({ resultType: 'input_required', inputRequests: missing ?? {}, requestState });
  }
}

/** Hands a response to the sink once it is ready (never rejects: every failure is already a response). */
function deliver(sink: ResponseSink, response: MaybePromise<JSONRPCResponse>): void {
  if (isPromise(response)) response.then((answer) => sink.respond(answer));
  else sink.respond(response);
}

/** What a request hook sees of a 2026-07-28 request (its revision from `_meta`, unchecked until dispatch). */
function incomingRequest(request: JSONRPCRequest, context: StatelessRequestContext): IncomingRequest {
  const meta = request.params?._meta;
  const version = isRecord(meta) ? meta[MetaKey.ProtocolVersion] : undefined;
  return {
    method: request.method,
    id: request.id,
    params: request.params,
    era: 'stateless',
    protocolVersion: typeof version === 'string' ? version : '',
    extra: context.extra,
  };
}
