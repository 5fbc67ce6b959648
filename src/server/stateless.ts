/**
 * 2026-07-28 (stateless): one request in, one response out. Version, client identity and capabilities travel
 * in every request's `_meta` (basic/index: _meta); nothing is remembered between requests except what a sealed
 * `requestState` carries.
 */
import { RpcError, toWireError } from '../jsonrpc/errors.js';
import type { JSONRPCRequest, JSONRPCResponse, RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import { McpErrorCode, invalidParams, unsupportedProtocolVersion } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { Method } from '../mcp/methods.js';
import type { StatelessRequestContext } from '../mcp/request-context.js';
import { eraOf, isSupportedVersion, statelessVersions } from '../mcp/revisions.js';
import {
  type ClientCapabilities,
  type Implementation,
  type JSONObject,
  LOGGING_LEVELS,
  type LoggingLevel,
} from '../mcp/types.js';
import type { RevisionCodec } from './codec.js';
import type { ServerCore } from './core.js';
import { type InputBackend, InputRequiredSignal, MrtrInputBackend } from './input.js';
import { type MaybePromise, isPromise } from '../util/maybe-promise.js';
import { type RequestStateBinding, type RequestStatePayload, principalOf } from './request-state.js';
import type { IncomingRequest } from './request-hook.js';
import type { EraRoute, RouteTable, StatelessRouteScope } from './routes.js';
import { isRecord } from '../util/record.js';

const MAX_INPUT_RESPONSES = 64;

/** True when a request belongs on the stateless path: it carries a per-request protocol version, or is discover. */
export function isStatelessRequest(message: JSONRPCRequest): boolean {
  if (message.method === Method.Discover) return true;
  const meta = message.params?._meta;
  return isRecord(meta) && meta[MetaKey.ProtocolVersion] !== undefined;
}

interface RequestMeta {
  readonly meta: JSONObject;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

/** 2026-07-28 basic/index: every request's `_meta` carries protocolVersion and clientCapabilities. */
function readMeta(params: JSONObject | undefined): RequestMeta {
  const meta = params?._meta;
  if (!isRecord(meta))
    throw invalidParams(`Missing _meta: every request must carry ${MetaKey.ProtocolVersion}`);
  const protocolVersion = meta[MetaKey.ProtocolVersion];
  if (typeof protocolVersion !== 'string') throw invalidParams(`Missing _meta["${MetaKey.ProtocolVersion}"]`);
  const clientCapabilities = meta[MetaKey.ClientCapabilities];
  if (!isRecord(clientCapabilities)) throw invalidParams(`Missing _meta["${MetaKey.ClientCapabilities}"]`);
  if (!isSupportedVersion(protocolVersion) || eraOf(protocolVersion) !== 'stateless') {
    throw unsupportedProtocolVersion(protocolVersion, statelessVersions());
  }
  const info = meta[MetaKey.ClientInfo];
  const level = meta[MetaKey.LogLevel];
  return {
    meta,
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    clientInfo: isRecord(info) ? (info as unknown as Implementation) : undefined,
    logLevel: LOGGING_LEVELS.includes(level as LoggingLevel) ? (level as LoggingLevel) : undefined,
  };
}

/** What a requestState is bound to (basic/patterns/mrtr: Server Requirements). */
function bindingOf(
  method: string,
  params: JSONObject | undefined,
  extra: MessageExtra | undefined,
): RequestStateBinding {
  const isRead = method === Method.ResourcesRead;
  return {
    method,
    name: String((isRead ? params?.uri : params?.name) ?? ''),
    // An omitted arguments object and an empty one are the same request.
    arguments: isRead ? null : (params?.arguments ?? {}),
    principal: principalOf(extra?.authInfo),
  };
}

const NO_INPUTS: Record<string, unknown> = Object.freeze({});

/** 2026-07-28 basic/patterns/mrtr: only tools/call, prompts/get and resources/read may ask the client for input. */
const NO_INPUT_BACKEND: InputBackend = {
  request: () => Promise.reject(new Error('this method cannot ask the client for input (input_required)')),
};

/** The answers an MRTR retry brings: this request's inputResponses, plus (winning) a verified requestState's. */
function readInputs(
  core: ServerCore,
  method: string,
  params: JSONObject | undefined,
  extra: MessageExtra | undefined,
): { available: Record<string, unknown>; round: number; oneTime?: RequestStatePayload } {
  const responses = params?.inputResponses;
  if (responses !== undefined && !isRecord(responses))
    throw invalidParams('inputResponses must be an object');
  if (responses && Object.keys(responses).length > MAX_INPUT_RESPONSES)
    throw invalidParams('too many inputResponses');
  const state = params?.requestState;
  // The backend only reads the answers: the request's own object serves as is.
  if (state === undefined) return { available: responses ?? NO_INPUTS, round: 0 };
  if (typeof state !== 'string') throw invalidParams('requestState must be a string');
  const opened = core.sealer.open(state, bindingOf(method, params, extra));
  // Tampered, expired, foreign or replayed on another request: one answer for all, and the handler never runs.
  if (!opened) throw invalidParams('Invalid requestState');
  const available = { ...responses, ...opened.responses };
  return core.sealer.oneTime
    ? { available, round: opened.round, oneTime: opened }
    : { available, round: opened.round };
}

/** A handler's failure: undefined (ask for the missing input) for InputRequiredSignal, else rethrown. */
function inputRequired(error: unknown): undefined {
  if (!(error instanceof InputRequiredSignal)) throw error;
  return undefined;
}

export class StatelessDispatcher {
  readonly #core: ServerCore;
  readonly #routes: RouteTable;

  constructor(core: ServerCore, routes: RouteTable) {
    this.#core = core;
    this.#routes = routes;
  }

  /**
   * The response, or a promise of it. A request whose steps are all synchronous (a sync tool handler, a
   * compiled validator) is answered before this returns: no promise, no microtask, nothing left to survive a
   * young-generation GC while the next message is parsed.
   */
  handle(request: JSONRPCRequest, context: StatelessRequestContext): MaybePromise<JSONRPCResponse> {
    let result: MaybePromise<JSONObject>;
    try {
      const hook = this.#core.aroundRequest;
      result =
        hook === undefined
          ? this.#dispatch(request, context)
          : hook(incomingRequest(request, context), () => this.#dispatch(request, context));
    } catch (error) {
      return this.#failed(request, error);
    }
    if (!isPromise(result)) return { jsonrpc: '2.0', id: request.id, result };
    return Promise.resolve(result).then(
      (value): JSONRPCResponse => ({ jsonrpc: '2.0', id: request.id, result: value }),
      (error: unknown) => this.#failed(request, error),
    );
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

  #dispatch(request: JSONRPCRequest, context: StatelessRequestContext): MaybePromise<JSONObject> {
    const meta = readMeta(request.params);
    const route = this.#routes.stateless.get(request.method);
    // initialize, ping, logging/setLevel, resources/(un)subscribe do not exist in this era (2026-07-28).
    if (!route) throw new RpcError(McpErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const codec = this.#core.codec(meta.protocolVersion);
    if (route.inputRequired) return this.#withInput(route, request, meta, codec, context);
    return route.handle(new StatelessScope(this.#core, codec, request, meta, context, NO_INPUT_BACKEND, 0));
  }

  #withInput(
    route: EraRoute<StatelessRouteScope>,
    request: JSONRPCRequest,
    meta: RequestMeta,
    codec: RevisionCodec,
    context: StatelessRequestContext,
  ): MaybePromise<JSONObject> {
    const { available, round, oneTime } = readInputs(
      this.#core,
      request.method,
      request.params,
      context.extra,
    );
    if (oneTime) {
      // A one-time state is claimed before the handler sees its answers: a replay never runs it twice.
      return this.#core.sealer.claim(oneTime).then((fresh) => {
        if (!fresh) throw invalidParams('Invalid requestState');
        return this.#runInput(route, request, meta, codec, context, available, round);
      });
    }
    return this.#runInput(route, request, meta, codec, context, available, round);
  }

  #runInput(
    route: EraRoute<StatelessRouteScope>,
    request: JSONRPCRequest,
    meta: RequestMeta,
    codec: RevisionCodec,
    context: StatelessRequestContext,
    available: Record<string, unknown>,
    round: number,
  ): MaybePromise<JSONObject> {
    const input = new MrtrInputBackend(available, meta.clientCapabilities);
    const scope = new StatelessScope(this.#core, codec, request, meta, context, input, round);
    // A handler asking for input it lacks throws InputRequiredSignal: that is the input_required answer.
    // The reactions are made only for a handler that is still running: a synchronous call allocates none.
    let result: MaybePromise<JSONObject>;
    try {
      result = route.handle(scope);
    } catch (error) {
      return this.#settleInput(request, codec, context, input, round, inputRequired(error));
    }
    if (!isPromise(result)) return this.#settleInput(request, codec, context, input, round, result);
    const settle = (value: JSONObject | undefined) =>
      this.#settleInput(request, codec, context, input, round, value);
    return result.then(settle, (error: unknown) => settle(inputRequired(error)));
  }

  #settleInput(
    request: JSONRPCRequest,
    codec: RevisionCodec,
    context: StatelessRequestContext,
    input: MrtrInputBackend,
    round: number,
    result: JSONObject | undefined,
  ): JSONObject {
    const missing = input.missing;
    if (!missing && result) return result;
    // 2026-07-28 basic/patterns/mrtr: ask for what is missing; carry what was already answered in the state.
    const binding = bindingOf(request.method, request.params, context.extra);
    const requestState = this.#core.sealer.seal(binding, { round: round + 1, responses: input.consumed });
    return codec.finish({ resultType: 'input_required', inputRequests: missing ?? {}, requestState });
  }
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

/** A 2026-07-28 request's scope. A class: on Node 20 an object literal with a getter is slow to create. */
class StatelessScope implements StatelessRouteScope {
  readonly era = 'stateless';
  readonly params: JSONObject | undefined;
  readonly protocolVersion: string;
  readonly requestId: RequestId;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly extra: MessageExtra | undefined;
  readonly meta: JSONObject;
  /** 2026-07-28: no notifications/message unless this request set a logLevel. */
  readonly logLevel: LoggingLevel | undefined;

  constructor(
    readonly core: ServerCore,
    readonly codec: RevisionCodec,
    readonly request: JSONRPCRequest,
    meta: RequestMeta,
    readonly context: StatelessRequestContext,
    readonly input: InputBackend,
    readonly inputRound: number,
  ) {
    this.params = request.params;
    this.protocolVersion = meta.protocolVersion;
    this.requestId = request.id;
    this.clientCapabilities = meta.clientCapabilities;
    this.clientInfo = meta.clientInfo;
    this.extra = context.extra;
    this.meta = meta.meta;
    this.logLevel = meta.logLevel;
  }

  /** Read lazily: the transports create their AbortController only when someone asks for the signal. */
  get signal(): AbortSignal {
    return this.context.signal;
  }

  async notify(method: string, params: JSONObject): Promise<void> {
    if (!this.context.signal.aborted) this.context.notify({ jsonrpc: '2.0', method, params });
  }
}
