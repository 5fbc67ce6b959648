/**
 * The one seam through which a protocol extension (2026-07-28 basic/extensions: `capabilities.extensions`) plugs
 * into the server: its identifier and settings (advertised under `capabilities.extensions[id]`), the request
 * methods it adds, and an optional hook around `tools/call`. The core calls these in three marked places:
 * capabilities (server.ts), method dispatch (stateless.ts, session.ts) and tools/call (operations.ts).
 */
import type { ClientCapabilities, JSONObject, ServerCapabilities } from '../mcp/types.js';
import { missingRequiredClientCapability } from '../mcp/errors.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { RevisionCodec } from './codec.js';
import type { RequestScope } from './context.js';

/** One request to a method an extension added. */
export interface ExtensionRequest {
  readonly method: string;
  readonly params: JSONObject | undefined;
  readonly scope: RequestScope;
  readonly codec: RevisionCodec;
}

/** Returns the result before `codec.finish` (the dispatcher finishes it: resultType, serverInfo). */
export type ExtensionMethodHandler = (request: ExtensionRequest) => MaybePromise<JSONObject>;

/** One tools/call as the hook sees it, and `run` to execute the core call (optionally with another scope). */
export interface ToolCallInterception {
  readonly name: string;
  readonly params: JSONObject | undefined;
  readonly scope: RequestScope;
  readonly codec: RevisionCodec;
  run(scope: RequestScope): MaybePromise<JSONObject>;
}

export interface ServerExtension {
  /** The extension identifier, e.g. `io.modelcontextprotocol/tasks`. */
  readonly id: string;
  /** Its value under `capabilities.extensions[id]` (default `{}`). */
  readonly settings?: JSONObject;
  /** Core capabilities the extension relies on, merged into the server's (the skills extension: resources). */
  readonly capabilities?: ServerCapabilities;
  /**
   * Request methods the extension adds. A client that did not declare the extension gets -32021 with
   * `requiredCapabilities.extensions[id]`, unless the extension sets `ungated`.
   */
  readonly methods?: Readonly<Record<string, ExtensionMethodHandler>>;
  /** Methods open to every client (an extension whose methods a non-declaring client may call). */
  readonly ungated?: boolean;
  /** Runs around every tools/call; returns `call.run(call.scope)` for calls it leaves alone. */
  callTool?(call: ToolCallInterception): MaybePromise<JSONObject>;
  /**
   * 2026-07-28 subscriptions/listen: the extension's own fields of the `notifications` filter (tasks: `taskIds`).
   * Returns what it agreed to (merged into the acknowledgement) and how to stop, or undefined when the filter
   * asks nothing of it. `send` tags each notification with the subscription id.
   */
  subscribe?(request: ListenRequest): Promise<ListenAttachment | undefined>;
}

export interface ListenRequest {
  readonly notifications: JSONObject;
  readonly scope: RequestScope;
  send(method: string, params: JSONObject): void;
}

export interface ListenAttachment {
  /** Fields merged into the acknowledgement's `notifications`. */
  readonly acknowledged: JSONObject;
  close(): void;
}

/** True when the client's capabilities (initialize, or this request's `_meta`) declare the extension. */
export function declaresExtension(capabilities: ClientCapabilities, id: string): boolean {
  const extensions = capabilities.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, id);
}

/** The server's installed extensions, in `use` order. */
export class ExtensionRegistry {
  readonly #extensions: ServerExtension[] = [];
  readonly #methods = new Map<string, { extension: ServerExtension; handler: ExtensionMethodHandler }>();

  add(extension: ServerExtension): void {
    if (this.#extensions.some((existing) => existing.id === extension.id))
      throw new Error(`extension ${extension.id} is already installed`);
    for (const method of Object.keys(extension.methods ?? {}))
      if (this.#methods.has(method)) throw new Error(`method ${method} is already provided by an extension`);
    this.#extensions.push(extension);
    for (const [method, handler] of Object.entries(extension.methods ?? {}))
      this.#methods.set(method, { extension, handler });
  }

  get size(): number {
    return this.#extensions.length;
  }

  methodNames(): string[] {
    return [...this.#methods.keys()];
  }

  has(method: string): boolean {
    return this.#methods.has(method);
  }

  /** Serves a method an extension added: gated on the client declaring that extension. */
  handle(request: ExtensionRequest): MaybePromise<JSONObject> {
    const entry = this.#methods.get(request.method);
    if (!entry) throw new Error(`no extension provides ${request.method}`);
    const { extension, handler } = entry;
    // 2026-07-28 basic/extensions + SEP-2663 Error Handling: a non-declaring client gets -32021.
    if (!extension.ungated && !declaresExtension(request.scope.clientCapabilities, extension.id))
      throw missingRequiredClientCapability({ extensions: { [extension.id]: {} } });
    return handler(request);
  }

  /** Runs the tools/call hooks outermost first, the core call innermost. */
  callTool(call: ToolCallInterception): MaybePromise<JSONObject> {
    const hooks = this.#extensions.filter((extension) => extension.callTool !== undefined);
    const step = (index: number, scope: RequestScope): MaybePromise<JSONObject> => {
      const extension = hooks[index];
      if (!extension?.callTool) return call.run(scope);
      return extension.callTool({ ...call, scope, run: (next) => step(index + 1, next) });
    };
    return step(0, call.scope);
  }

  /** Attaches every extension's part of one listen stream; gated on the client declaring the extension. */
  async subscribe(request: ListenRequest): Promise<ListenAttachment | undefined> {
    const attached: ListenAttachment[] = [];
    try {
      for (const extension of this.#extensions) {
        const attachment = await extension.subscribe?.(request);
        if (!attachment) continue;
        attached.push(attachment);
        if (!extension.ungated && !declaresExtension(request.scope.clientCapabilities, extension.id))
          throw missingRequiredClientCapability({ extensions: { [extension.id]: {} } });
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

  /** `capabilities.extensions` and the core capabilities the extensions rely on, merged over `base`. */
  capabilities(base: ServerCapabilities): ServerCapabilities {
    if (this.#extensions.length === 0) return base;
    const merged: ServerCapabilities = { ...base };
    const extensions: Record<string, JSONObject> = { ...(base.extensions ?? {}) };
    for (const extension of this.#extensions) {
      for (const [key, value] of Object.entries(extension.capabilities ?? {})) {
        const current = merged[key];
        merged[key] =
          typeof current === 'object' && current !== null ? { ...current, ...(value as object) } : value;
      }
      extensions[extension.id] = extension.settings ?? {};
    }
    merged.extensions = extensions;
    return merged;
  }
}
