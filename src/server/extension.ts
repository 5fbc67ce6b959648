/**
 * Extensions (2026-07-28 basic/extensions): a set of methods outside MCP's core, announced under
 * `capabilities.extensions[id]`. `McpServer.use(extension)` adds an extension's methods to the route table both
 * eras dispatch from; the core is not edited. An extension may also hook `tools/call` (tasks: a call may answer
 * with a CreateTaskResult) and its own fields of a subscriptions/listen filter (tasks: `taskIds`). Tasks
 * (`io.modelcontextprotocol/tasks`, agentforge/extensions/tasks) and skills (skills/list, skills/get,
 * agentforge/extensions/skills) are built this way.
 */
import { missingRequiredClientCapability } from '../mcp/errors.js';
import type { ClientCapabilities, JSONObject, ServerCapabilities } from '../mcp/types.js';
import { type MaybePromise, isPromise } from '../util/maybe-promise.js';
import type { Cache } from './codec.js';
import { isRecord } from '../util/record.js';
import { type RequestScope, createHandlerContext } from './context.js';
import type {
  ExtensionHooks,
  ListenAttachment,
  ListenRequest,
  ToolCallInterception,
} from './extension-hooks.js';
import type { Route, RouteScope } from './routes.js';
import type { CacheHints, HandlerContext } from './types.js';

export type { ListenAttachment, ListenRequest, ToolCallInterception } from './extension-hooks.js';

/** One method an extension serves. */
export interface ExtensionMethod {
  /**
   * The eras that serve the method (default both). A method of the other era is answered -32601, as any
   * unknown method is.
   */
  readonly era?: 'both' | 'handshake' | 'stateless';
  /**
   * 2026-07-28 (SEP-2549): the result's `ttlMs` and `cacheScope`; a field left out is the server's default.
   * Absent: the result carries none (earlier revisions never do).
   */
  readonly cache?: CacheHints;
  /**
   * Answers one request. `params` is the peer's, unchecked: validate it (a malformed request is an
   * `invalidParams` error, see `agentforge/mcp`). The context is the one tool handlers get: era, client identity
   * and capabilities, `principal`, signal, progress and log. Asking the client for input (elicit, sample,
   * listRoots) works on a handshake session; on 2026-07-28 only tools/call, prompts/get and resources/read may
   * answer `input_required`, so there it rejects. On 2026-07-28 the result is finished like every result:
   * `resultType` (kept when the handler sets one) and the server's identity in `_meta`.
   */
  handler(params: JSONObject | undefined, context: HandlerContext): MaybePromise<JSONObject>;
}

export interface ServerExtension {
  /** The extension identifier, e.g. "io.modelcontextprotocol/tasks" (a `_meta`-style key with its prefix). */
  readonly id: string;
  /** The per-extension settings advertised as `capabilities.extensions[id]` (default `{}`: supported, no settings). */
  readonly settings?: JSONObject;
  /** Core capabilities the extension relies on, merged into the server's (the skills extension: resources). */
  readonly capabilities?: ServerCapabilities;
  /** Method name to its handler, e.g. `{ 'tasks/get': { handler } }`. */
  readonly methods?: Readonly<Record<string, ExtensionMethod>>;
  /**
   * True when the extension is only for clients that declare it (in `initialize` capabilities, or the request's
   * `_meta` client capabilities on 2026-07-28): any other client calling its methods, or asking for its listen
   * fields, gets -32021 with `requiredCapabilities.extensions[id]` (SEP-2663 Error Handling). Default false:
   * the methods are open to every client.
   */
  readonly gated?: boolean;
  /** Runs around every tools/call of a registered tool; returns `call.run(call.scope)` for calls it leaves alone. */
  callTool?(call: ToolCallInterception): MaybePromise<JSONObject>;
  /**
   * The extension's own fields of a subscriptions/listen `notifications` filter (tasks: `taskIds`). Returns what
   * it agreed to (merged into the acknowledgement) and how to stop, or undefined when the filter asks nothing of
   * it.
   */
  subscribe?(request: ListenRequest): Promise<ListenAttachment | undefined>;
}

/** Extension ids follow the `_meta` key rules (basic/index: _meta): a dotted, slash-ended prefix, then a name. */
const EXTENSION_ID =
  /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** True when the client's capabilities (initialize, or this request's `_meta`) declare the extension. */
export function declaresExtension(capabilities: ClientCapabilities, id: string): boolean {
  const extensions = capabilities.extensions;
  return isRecord(extensions) && Object.hasOwn(extensions, id);
}

/** Throws -32021 when the extension is gated and the client did not declare it. */
function checkDeclared(extension: ServerExtension, capabilities: ClientCapabilities): void {
  if (extension.gated === true && !declaresExtension(capabilities, extension.id))
    throw missingRequiredClientCapability({ extensions: { [extension.id]: {} } });
}

/** A JSON-RPC result is an object (basic: Result); anything else from a handler is a server bug, not sent. */
function finish(method: string, scope: RouteScope, result: unknown, cache?: CacheHints): JSONObject {
  if (!isRecord(result)) throw new Error(`${method} handler returned ${describe(result)}, not an object`);
  return scope.codec.finish(result, cache && cacheOf(scope.core.defaultCache, cache));
}

/** The method's own hints, the server's defaults for what they leave out. */
function cacheOf(defaults: Cache, hints: CacheHints): Cache {
  return {
    ttlMs: Math.max(0, Math.floor(hints.ttlMs ?? defaults.ttlMs)),
    cacheScope: hints.cacheScope ?? defaults.cacheScope,
  };
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The routes of an extension, each gated on the capability the extension advertises. */
export function extensionRoutes(extension: ServerExtension): Route[] {
  if (!EXTENSION_ID.test(extension.id))
    throw new TypeError(`extension id ${extension.id} is not a prefixed name like "com.example/name"`);
  const capability = ['extensions', extension.id];
  return Object.entries(extension.methods ?? {}).map(([method, { era = 'both', cache, handler }]): Route => {
    if (method.length === 0) throw new TypeError(`extension ${extension.id} has a method with no name`);
    return {
      method,
      era,
      capability,
      handle: (scope: RouteScope) => {
        checkDeclared(extension, scope.clientCapabilities);
        const result = handler(scope.params, createHandlerContext(scope));
        // Promise.resolve: a handler may return another library's thenable.
        if (isPromise(result))
          return Promise.resolve(result).then((value) => finish(method, scope, value, cache));
        return finish(method, scope, result, cache);
      },
    };
  });
}

/** The extensions `McpServer.use` installed, in `use` order: their capabilities and their non-route hooks. */
export class InstalledExtensions implements ExtensionHooks {
  readonly #extensions: ServerExtension[] = [];

  get size(): number {
    return this.#extensions.length;
  }

  has(id: string): boolean {
    return this.#extensions.some((extension) => extension.id === id);
  }

  add(extension: ServerExtension): void {
    if (this.has(extension.id)) throw new Error(`extension ${extension.id} is already in use`);
    this.#extensions.push(extension);
  }

  remove(id: string): void {
    const index = this.#extensions.findIndex((extension) => extension.id === id);
    if (index >= 0) this.#extensions.splice(index, 1);
  }

  /** Runs the tools/call hooks outermost first (in `use` order), the core call innermost. */
  callTool(call: ToolCallInterception): MaybePromise<JSONObject> {
    const hooks = this.#extensions.filter((extension) => extension.callTool !== undefined);
    const step = (index: number, scope: RequestScope): MaybePromise<JSONObject> => {
      const extension = hooks[index];
      if (!extension?.callTool) return call.run(scope);
      return extension.callTool({ ...call, scope, run: (next) => step(index + 1, next) });
    };
    return step(0, call.scope);
  }

  /** Attaches every extension's part of one listen stream; a gated one only for a client that declared it. */
  async subscribe(request: ListenRequest): Promise<ListenAttachment | undefined> {
    const attached: ListenAttachment[] = [];
    try {
      for (const extension of this.#extensions) {
        const attachment = await extension.subscribe?.(request);
        if (!attachment) continue;
        attached.push(attachment);
        checkDeclared(extension, request.scope.clientCapabilities);
      }
    } catch (error) {
      for (const attachment of attached) attachment.close();
      throw error;
    }
    if (attached.length === 0) return undefined;
    return {
      acknowledged: Object.assign({}, ...attached.map((attachment) => attachment.acknowledged)),
      close: () => {
        for (const attachment of attached) attachment.close();
      },
    };
  }

  /** `capabilities.extensions[id]` for each, and the core capabilities they rely on, merged over `base`. */
  capabilities(base: ServerCapabilities): ServerCapabilities {
    if (this.#extensions.length === 0) return base;
    const merged: ServerCapabilities = { ...base };
    const extensions: Record<string, JSONObject> = { ...base.extensions };
    for (const extension of this.#extensions) {
      for (const [key, value] of Object.entries(extension.capabilities ?? {})) {
        const current = merged[key];
        merged[key] = isRecord(current) ? { ...current, ...(value as object) } : value;
      }
      extensions[extension.id] = extension.settings ?? {};
    }
    merged.extensions = extensions;
    return merged;
  }
}
