/**
 * Extensions (2026-07-28 basic/extensions): a set of methods outside MCP's core, announced under
 * `capabilities.extensions[id]`. `McpServer.use(extension)` adds an extension's methods to the route table both
 * eras dispatch from; the core is not edited. Tasks (`io.modelcontextprotocol/tasks`: tasks/get, tasks/update,
 * tasks/cancel) and skills (skills/list, skills/get) are built this way.
 */
import type { JSONObject } from '../mcp/types.js';
import { type MaybePromise, isPromise } from '../util/maybe-promise.js';
import { isPlainObject } from './codec.js';
import { createHandlerContext } from './context.js';
import type { Route, RouteScope } from './routes.js';
import type { HandlerContext } from './types.js';

/** One method an extension serves. */
export interface ExtensionMethod {
  /**
   * The eras that serve the method (default both). A method of the other era is answered -32601, as any
   * unknown method is.
   */
  readonly era?: 'both' | 'handshake' | 'stateless';
  /**
   * Answers one request. `params` is the peer's, unchecked: validate it (a malformed request is an
   * `invalidParams` error, see `agentforge/mcp`). The context is the one tool handlers get: era, client identity
   * and capabilities, signal, progress and log. Asking the client for input (elicit, sample, listRoots) works on
   * a handshake session; on 2026-07-28 only tools/call, prompts/get and resources/read may answer
   * `input_required`, so there it rejects. On 2026-07-28 the result is finished like every result: `resultType`
   * (kept when the handler sets one) and the server's identity in `_meta`.
   */
  handler(params: JSONObject | undefined, context: HandlerContext): MaybePromise<JSONObject>;
}

export interface ServerExtension {
  /** The extension identifier, e.g. "io.modelcontextprotocol/tasks" (a `_meta`-style key with its prefix). */
  readonly id: string;
  /** The per-extension settings advertised as `capabilities.extensions[id]` (default `{}`: supported, no settings). */
  readonly settings?: JSONObject;
  /** Method name to its handler, e.g. `{ 'tasks/get': { handler } }`. */
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
}

/** Extension ids follow the `_meta` key rules (basic/index: _meta): a dotted, slash-ended prefix, then a name. */
const EXTENSION_ID =
  /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** A JSON-RPC result is an object (basic: Result); anything else from a handler is a server bug, not sent. */
function finish(method: string, scope: RouteScope, result: unknown): JSONObject {
  if (!isPlainObject(result))
    throw new Error(`${method} handler returned ${describe(result)}, not an object`);
  return scope.codec.finish(result);
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The routes of an extension, each gated on the capability the extension advertises. */
export function extensionRoutes(extension: ServerExtension): Route[] {
  if (!EXTENSION_ID.test(extension.id))
    throw new TypeError(`extension id ${extension.id} is not a prefixed name like "com.example/name"`);
  const capability = ['extensions', extension.id];
  return Object.entries(extension.methods).map(([method, { era = 'both', handler }]): Route => {
    if (method.length === 0) throw new TypeError(`extension ${extension.id} has a method with no name`);
    return {
      method,
      era,
      capability,
      handle: (scope: RouteScope) => {
        const result = handler(scope.params, createHandlerContext(scope));
        // Promise.resolve: a handler may return another library's thenable.
        if (isPromise(result)) return Promise.resolve(result).then((value) => finish(method, scope, value));
        return finish(method, scope, result);
      },
    };
  });
}
