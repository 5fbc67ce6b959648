/**
 * The server's one route table: every request method either era serves, what it needs, and the operation that
 * answers it. The handshake session and the stateless dispatcher both read it; what differs between the eras
 * lives in the codec and in the per-request scope each builds, never here. Adding a method is one entry.
 */
import type { Params } from '../jsonrpc/connection.js';
import type { JSONRPCRequest } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import { Method } from '../mcp/methods.js';
import type { StatelessRequestContext } from '../mcp/request-context.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../mcp/revisions.js';
import type { JSONObject, ServerCapabilities } from '../mcp/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { RevisionCodec } from './codec.js';
import type { RequestScope } from './context.js';
import type { ServerCore } from './core.js';
import * as ops from './operations.js';
import { callTool } from './tool-call.js';
import { principalOf } from './request-state.js';
import type { ListenAttach } from './subscriptions.js';
import { isRecord } from '../util/record.js';

/** What a route sees of one request, whatever its era: the server, the revision's codec, the params, the scope. */
export interface RouteScope extends RequestScope {
  readonly core: ServerCore;
  readonly codec: RevisionCodec;
  readonly params: Params;
}

/** The handshake session's own state, which only its era's methods change (lifecycle, logging, subscribe). */
export interface SessionControl {
  initialize(params: Params, extra: MessageExtra | undefined): JSONObject;
  setLogLevel(params: Params): JSONObject;
  subscribe(params: Params, subscribe: boolean): JSONObject;
}

export interface HandshakeRouteScope extends RouteScope {
  readonly session: SessionControl;
}

export interface StatelessRouteScope extends RouteScope {
  readonly request: JSONRPCRequest;
  readonly context: StatelessRequestContext;
}

interface RouteBase {
  readonly method: string;
  /**
   * The capability path the server must advertise for the method to be served (`['resources', 'subscribe']`,
   * `['extensions', 'io.modelcontextprotocol/tasks']`); absent for methods every server answers.
   */
  readonly capability?: readonly string[];
  /** Handshake era: served before `initialize` completes (basic/lifecycle: only initialize and ping). */
  readonly beforeInitialize?: boolean;
  /** 2026-07-28 basic/patterns/mrtr: the result may be `input_required` (the scope carries the answers). */
  readonly inputRequired?: boolean;
}

/** A route, typed by the era it belongs to: an era-specific method may use what only that era's scope has. */
export type Route =
  | (RouteBase & { readonly era: 'both'; handle(scope: RouteScope): MaybePromise<JSONObject> })
  | (RouteBase & { readonly era: 'handshake'; handle(scope: HandshakeRouteScope): MaybePromise<JSONObject> })
  | (RouteBase & { readonly era: 'stateless'; handle(scope: StatelessRouteScope): MaybePromise<JSONObject> });

/** A route as one era dispatches it. */
export type EraRoute<Scope extends RouteScope> = RouteBase & {
  readonly era: Route['era'];
  handle(scope: Scope): MaybePromise<JSONObject>;
};

/** 2026-07-28 server/discover: what the server speaks and offers, without a session. */
function discover(scope: RouteScope): JSONObject {
  const { core, codec } = scope;
  const result: JSONObject = {
    supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    capabilities: codec.capabilities(core.capabilities()),
  };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  return codec.finish(result, core.defaultCache);
}

/** The installed extensions' part of a listen stream (tasks: notifications/tasks), when any is installed. */
function listenHook(scope: StatelessRouteScope): ListenAttach | undefined {
  const { extensions } = scope.core;
  if (extensions.size === 0) return undefined;
  const principal = principalOf(scope.extra?.authInfo);
  return (listen) => extensions.subscribe({ ...listen, scope, principal });
}

/** The methods of MCP itself. Extensions add theirs with `McpServer.use`. */
export const CORE_ROUTES: readonly Route[] = [
  // basic/lifecycle (handshake revisions); 2026-07-28 has neither initialize nor ping.
  {
    method: Method.Initialize,
    era: 'handshake',
    beforeInitialize: true,
    handle: (s) => s.session.initialize(s.params, s.extra),
  },
  { method: Method.Ping, era: 'handshake', beforeInitialize: true, handle: () => ({}) },
  { method: Method.Discover, era: 'stateless', handle: discover },
  {
    method: Method.LoggingSetLevel,
    era: 'handshake',
    capability: ['logging'],
    handle: (s) => s.session.setLogLevel(s.params),
  },
  {
    method: Method.ResourcesSubscribe,
    era: 'handshake',
    capability: ['resources', 'subscribe'],
    handle: (s) => s.session.subscribe(s.params, true),
  },
  {
    method: Method.ResourcesUnsubscribe,
    era: 'handshake',
    capability: ['resources', 'subscribe'],
    handle: (s) => s.session.subscribe(s.params, false),
  },
  // 2026-07-28 basic/patterns/subscriptions: the stream replaces resources/subscribe and list_changed on a session.
  {
    method: Method.SubscriptionsListen,
    era: 'stateless',
    handle: (s) => s.core.listens.listen(s.request, s.codec, s.context, listenHook(s)),
  },
  {
    method: Method.ToolsList,
    era: 'both',
    capability: ['tools'],
    handle: (s) => ops.listTools(s.core, s.codec, s.params, s.extra?.authInfo),
  },
  {
    method: Method.ToolsCall,
    era: 'both',
    capability: ['tools'],
    inputRequired: true,
    handle: (s) => callTool(s.core, s.codec, s, s.params),
  },
  {
    method: Method.PromptsList,
    era: 'both',
    capability: ['prompts'],
    handle: (s) => ops.listPrompts(s.core, s.codec, s.params, s.extra?.authInfo),
  },
  {
    method: Method.PromptsGet,
    era: 'both',
    capability: ['prompts'],
    inputRequired: true,
    handle: (s) => ops.getPrompt(s.core, s.codec, s, s.params),
  },
  {
    method: Method.ResourcesList,
    era: 'both',
    capability: ['resources'],
    handle: (s) => ops.listResources(s.core, s.codec, s.params, s.extra?.authInfo),
  },
  {
    method: Method.ResourcesTemplatesList,
    era: 'both',
    capability: ['resources'],
    handle: (s) => ops.listResourceTemplates(s.core, s.codec, s.params, s.extra?.authInfo),
  },
  {
    method: Method.ResourcesRead,
    era: 'both',
    capability: ['resources'],
    inputRequired: true,
    handle: (s) => ops.readResource(s.core, s.codec, s, s.params),
  },
  {
    method: Method.CompletionComplete,
    era: 'both',
    capability: ['completions'],
    handle: (s) => ops.complete(s.core, s.codec, s.params),
  },
];

/** True when the capabilities hold the object at `path` (an empty object counts: "supported, no settings"). */
export function advertises(capabilities: ServerCapabilities, path: readonly string[]): boolean {
  let node: unknown = capabilities;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return node !== undefined && node !== false;
}

const inHandshake = (route: Route): route is Extract<Route, { era: 'both' | 'handshake' }> =>
  route.era !== 'stateless';
const inStateless = (route: Route): route is Extract<Route, { era: 'both' | 'stateless' }> =>
  route.era !== 'handshake';

/**
 * The routes, and for each era the map it dispatches from. The maps are rebuilt when routes are added (rare:
 * at setup), so a request costs one map lookup.
 */
export class RouteTable {
  readonly #routes = new Map<string, Route>();
  readonly #capabilities: () => ServerCapabilities;
  #handshake = new Map<string, EraRoute<HandshakeRouteScope>>();
  #stateless = new Map<string, EraRoute<StatelessRouteScope>>();

  constructor(routes: readonly Route[], capabilities: () => ServerCapabilities) {
    this.#capabilities = capabilities;
    this.add(routes);
  }

  get handshake(): ReadonlyMap<string, EraRoute<HandshakeRouteScope>> {
    return this.#handshake;
  }

  get stateless(): ReadonlyMap<string, EraRoute<StatelessRouteScope>> {
    return this.#stateless;
  }

  /** Adds routes; a method already served (by MCP or another extension) is refused, and nothing is added. */
  add(routes: readonly Route[]): void {
    const methods = new Set<string>();
    for (const route of routes) {
      if (this.#routes.has(route.method) || methods.has(route.method))
        throw new Error(`method ${route.method} is already served`);
      methods.add(route.method);
    }
    for (const route of routes) this.#routes.set(route.method, route);
    this.#rebuild();
  }

  #rebuild(): void {
    const capabilities = this.#capabilities();
    const served = [...this.#routes.values()].filter(
      (route) => route.capability === undefined || advertises(capabilities, route.capability),
    );
    this.#handshake = new Map(served.filter(inHandshake).map((route) => [route.method, route]));
    this.#stateless = new Map(served.filter(inStateless).map((route) => [route.method, route]));
  }
}
