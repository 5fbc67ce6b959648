/**
 * 2026-07-28 basic/transports/streamable-http: Custom Headers from Tool Parameters. The transport learns each
 * tool's `x-mcp-header` declarations from the tools/list responses it carries, drops tools whose declarations
 * are invalid (with a warning), and mirrors the designated argument values into `Mcp-Param-{Name}` headers on
 * tools/call. A call to a tool it has not seen is preceded by a tools/list of its own; a call answered
 * HeaderMismatch is sent once more after a fresh tools/list (Client Behavior). Stateless mode only.
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '../../../jsonrpc/messages.js';
import { McpErrorCode } from '../../../mcp/errors.js';
import { Method } from '../../../mcp/methods.js';
import type { Tool } from '../../../mcp/types.js';
import { type Deferred, deferred } from '../../../util/deferred.js';
import type { Logger } from '../../../util/logger.js';
import {
  type ParamHeader,
  encodeHeaderValue,
  headerStringOf,
  scanParamHeaders,
  valueAtPath,
} from '../header-values.js';
import { isRecord } from '../../../util/record.js';

/** Following `nextCursor` of the transport's own tools/list stops here. */
const MAX_PAGES = 100;

export class ToolHeaderRegistry {
  readonly #headers = new Map<string, readonly ParamHeader[]>();
  #known = false;

  /** Whether a tools/list has been seen (so a call to an unknown tool can fetch one first). */
  get known(): boolean {
    return this.#known;
  }

  has(name: string): boolean {
    return this.#headers.has(name);
  }

  /** Keeps the valid tools of one page, remembering their header declarations; warns about the rest. */
  filter(tools: readonly Tool[], logger: Logger): Tool[] {
    const kept: Tool[] = [];
    for (const tool of tools) {
      const scan = scanParamHeaders(tool.inputSchema);
      if (!scan.ok) {
        logger.warn(`ignoring tool ${JSON.stringify(tool.name)}: invalid x-mcp-header (${scan.reason})`);
        this.#headers.delete(tool.name);
        continue;
      }
      this.#headers.set(tool.name, scan.headers);
      kept.push(tool);
    }
    this.#known = true;
    return kept;
  }

  clear(): void {
    this.#headers.clear();
    this.#known = false;
  }

  /** The `Mcp-Param-*` headers for an outgoing tools/call; absent or null values are omitted. */
  headersFor(message: JSONRPCRequest): Record<string, string> | undefined {
    if (message.method !== Method.ToolsCall) return undefined;
    const name = message.params?.name;
    const declarations = typeof name === 'string' ? this.#headers.get(name) : undefined;
    if (!declarations || declarations.length === 0) return undefined;
    const args = message.params?.arguments;
    const headers: Record<string, string> = {};
    for (const declaration of declarations) {
      const text = headerStringOf(valueAtPath(args, declaration.path));
      if (text !== undefined)
        headers[`mcp-param-${declaration.name.toLowerCase()}`] = encodeHeaderValue(text);
    }
    return headers;
  }
}

/** The transport's side of header mirroring: which responses to read, which calls to send again. */
export class ToolHeaderMirror {
  readonly registry = new ToolHeaderRegistry();
  readonly #logger: Logger;
  /** Outstanding tools/list requests (the client's and the transport's own). */
  readonly #lists = new Set<RequestId>();
  /** Outstanding tools/call requests, those answered HeaderMismatch, and those sent again after one. */
  readonly #calls = new Set<RequestId>();
  readonly #resent = new Set<RequestId>();
  readonly #mismatched = new Set<RequestId>();
  readonly #own = new Map<RequestId, Deferred<JSONRPCMessage>>();
  /** Calls waiting for the tools/list before them; resolved with false when cancelled. */
  readonly #waiting = new Map<RequestId, Deferred<boolean>>();
  #ownIds = 0;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Whether `message` takes part: a tools/list (its response is read) or a tools/call (headers). */
  mirrors(message: JSONRPCRequest): boolean {
    return message.method === Method.ToolsList || message.method === Method.ToolsCall;
  }

  /**
   * Sends a tools/list or tools/call through `post`. A call to a tool not learned yet waits for a tools/list of
   * the transport's own (within the call's cancellation); any other goes out at once. The transport reports
   * the end of each post to `ended` (or `forget`, when it failed), which decides what follows.
   */
  send(message: JSONRPCRequest, post: (message: JSONRPCRequest) => Promise<void>): Promise<void> {
    if (message.method === Method.ToolsList) {
      this.#lists.add(message.id);
      return post(message);
    }
    this.#calls.add(message.id);
    return this.#knows(message) ? post(message) : this.#sendAfterList(message, post);
  }

  async #sendAfterList(message: JSONRPCRequest, post: (message: JSONRPCRequest) => Promise<void>) {
    if (await this.#learnFirst(message, post)) return post(message);
    // Cancelled before it went out.
    this.forget(message.id);
  }

  /**
   * One post of `id` is over: true when it was a call answered HeaderMismatch for the first time, which the
   * transport sends again through `resend`; otherwise the request is forgotten.
   */
  ended(id: RequestId): boolean {
    if (this.#mismatched.delete(id)) return true;
    this.forget(id);
    return false;
  }

  forget(id: RequestId): void {
    this.#lists.delete(id);
    this.#calls.delete(id);
    this.#resent.delete(id);
    this.#mismatched.delete(id);
  }

  /** streamable-http Client Behavior: on HeaderMismatch, refresh tools/list, then retry once with fresh headers. */
  async resend(message: JSONRPCRequest, post: (message: JSONRPCRequest) => Promise<void>): Promise<void> {
    this.#resent.add(message.id);
    try {
      await this.learn(message, post).catch(() => undefined);
      await post(message);
    } finally {
      this.forget(message.id);
    }
  }

  /** Ends the wait of a call not sent yet (the caller cancelled it); false if there is none. */
  cancel(id: RequestId): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    waiting.resolve(false);
    return true;
  }

  #knows(call: JSONRPCRequest): boolean {
    const name = call.params?.name;
    return this.registry.known || (typeof name === 'string' && this.registry.has(name));
  }

  /** Lists tools before the call; false when the call was cancelled meanwhile. */
  async #learnFirst(
    call: JSONRPCRequest,
    post: (message: JSONRPCRequest) => Promise<void>,
  ): Promise<boolean> {
    const waiting = deferred<boolean>();
    this.#waiting.set(call.id, waiting);
    try {
      const learned = this.learn(call, post).then(
        () => true,
        () => true,
      );
      return await Promise.race([learned, waiting.promise]);
    } finally {
      this.#waiting.delete(call.id);
    }
  }

  /** An incoming message: what to deliver (a filtered tools/list), or `undefined` to hold it back. */
  received(message: JSONRPCMessage): JSONRPCMessage | undefined {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return message;
    const own = this.#own.get(id);
    if (own) {
      this.#own.delete(id);
      this.#readList(message);
      own.resolve(message);
      return undefined;
    }
    if (this.#lists.delete(id)) return this.#readList(message);
    if (this.#calls.has(id) && !this.#resent.has(id) && isHeaderMismatch(message)) {
      this.#mismatched.add(id);
      return undefined;
    }
    return message;
  }

  /**
   * Lists every page of tools with the call's own `_meta` (version, capabilities, identity), through `post`.
   * Failures are the call's to discover: it is sent either way, without headers for what was not learned.
   */
  async learn(call: JSONRPCRequest, post: (message: JSONRPCRequest) => Promise<void>): Promise<void> {
    const meta = call.params?._meta;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const id = `tool-headers-${++this.#ownIds}`;
      const params: Record<string, unknown> = meta === undefined ? {} : { _meta: meta };
      if (cursor !== undefined) params.cursor = cursor;
      const answer = deferred<JSONRPCMessage>();
      this.#own.set(id, answer);
      try {
        await post({ jsonrpc: '2.0', id, method: Method.ToolsList, params });
      } finally {
        this.#own.delete(id);
      }
      const result = (await Promise.race([answer.promise, Promise.resolve(undefined)])) as
        | { result?: { nextCursor?: unknown } }
        | undefined;
      const next = result?.result?.nextCursor;
      if (typeof next !== 'string' || next === '' || next === cursor) return;
      cursor = next;
    }
  }

  #readList(message: JSONRPCMessage): JSONRPCMessage {
    const result = (message as { result?: unknown }).result;
    // A malformed list is delivered as it is: the client reports it (src/client/result-shapes.ts).
    if (!isRecord(result) || !Array.isArray(result.tools) || !result.tools.every(isRecord)) return message;
    const tools = this.registry.filter(result.tools as unknown as Tool[], this.#logger);
    if (tools.length === result.tools.length) return message;
    return { ...message, result: { ...result, tools } } as JSONRPCMessage;
  }
}

function isHeaderMismatch(message: JSONRPCMessage): boolean {
  const error = (message as { error?: { code?: unknown } }).error;
  return error?.code === McpErrorCode.HeaderMismatch;
}
