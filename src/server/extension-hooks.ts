/**
 * What the core calls of the installed extensions beyond their methods (those are routes): the hook around
 * tools/call and the one on a subscriptions/listen filter. A leaf of the server: the core (core.ts, operations,
 * the listen hub) depends on these shapes, extension.ts implements them.
 */
import type { JSONObject } from '../mcp/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { RevisionCodec } from './codec.js';
import type { RequestScope } from './context.js';

/** One tools/call as a hook sees it, and `run` to execute the core call (optionally with another scope). */
export interface ToolCallInterception {
  readonly name: string;
  readonly params: JSONObject | undefined;
  readonly scope: RequestScope;
  readonly codec: RevisionCodec;
  /** The verified caller, as handlers see it (`HandlerContext.principal`); undefined when unauthenticated. */
  readonly principal: string | undefined;
  run(scope: RequestScope): MaybePromise<JSONObject>;
}

/** 2026-07-28 subscriptions/listen: the part of the `notifications` filter an extension may claim. */
export interface ListenRequest {
  readonly notifications: JSONObject;
  readonly scope: RequestScope;
  /** The verified caller (`HandlerContext.principal`); undefined when unauthenticated. */
  readonly principal: string | undefined;
  /** Sends a notification on the stream, tagged with the subscription id (held back until the acknowledgement). */
  send(method: string, params: JSONObject): void;
}

export interface ListenAttachment {
  /** Fields merged into the acknowledgement's `notifications`. */
  readonly acknowledged: JSONObject;
  close(): void;
}

/** The installed extensions as the core sees them (extension.ts: InstalledExtensions). */
export interface ExtensionHooks {
  /** How many are installed: with none, tools/call and listen take their plain path. */
  readonly size: number;
  /** Runs the tools/call hooks around the core call. */
  callTool(call: ToolCallInterception): MaybePromise<JSONObject>;
  /** Attaches the extensions' part of one listen stream, or undefined when the filter asks nothing of them. */
  subscribe(request: ListenRequest): Promise<ListenAttachment | undefined>;
}
