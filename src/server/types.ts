import type { RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import type { Era } from '../mcp/revisions.js';
import type {
  CacheScope,
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Icon,
  Implementation,
  InputRequest,
  InputResponse,
  JSONObject,
  ListRootsResult,
  LoggingLevel,
  PromptArgument,
  ReadResourceResult,
  ToolAnnotations,
} from '../mcp/types.js';
import type { UriVariables } from '../mcp/uri-template.js';

/** Caching hints (2026-07-28 server/utilities/caching), per server, tool, prompt or resource. */
export interface CacheHints {
  ttlMs?: number;
  cacheScope?: CacheScope;
}

/** A Standard Schema (https://standardschema.dev): zod 4, valibot, arktype... */
export interface StandardSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult | Promise<StandardResult>;
    /** Standard JSON Schema: the vendor's own converter. */
    readonly jsonSchema?: {
      input?(options: { target: string }): unknown;
      output?(options: { target: string }): unknown;
    };
  };
}

export type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<unknown> }> };

/** A plain JSON Schema object (2020-12 unless `$schema` names draft-07) or any Standard Schema. */
export type SchemaInput = JSONObject | StandardSchema;

/** The caller, as the transport authenticated it (e.g. an OAuth access token's claims). */
export type AuthInfo = unknown;

/**
 * What every handler gets. The same handler code serves both eras: `elicit`, `sample`, `listRoots` and
 * `requestInput` become server-initiated requests on a handshake-era session and an `input_required` result
 * (MRTR) on a 2026-07-28 request, whose retry re-runs the handler with the answers available.
 */
export interface HandlerContext {
  readonly signal: AbortSignal;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly requestId: RequestId;
  /** The client's capabilities: from `initialize` (handshake) or this request's `_meta` (2026-07-28). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly authInfo: AuthInfo | undefined;
  /** The transport's facts about this message (headers, session id, SSE controls). */
  readonly extra: MessageExtra | undefined;
  /** The request's `_meta`. */
  readonly meta: JSONObject | undefined;
  /**
   * How many input rounds a verified `requestState` vouches for (0 on a first call). On a handshake session
   * input is answered inline, so it stays 0.
   */
  readonly inputRound: number;
  /** Reports progress when the client asked for it (a progress token); otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message` when the level passes the client's threshold; otherwise a no-op. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  elicit(params: ElicitRequestParams, options?: InputOptions): Promise<ElicitResult>;
  sample(params: CreateMessageRequestParams, options?: InputOptions): Promise<CreateMessageResult>;
  listRoots(options?: InputOptions): Promise<ListRootsResult>;
  /** Several inputs at once (one round on 2026-07-28, concurrent requests on a session). Keys are yours. */
  requestInput<K extends string>(requests: Record<K, InputRequest>): Promise<Record<K, InputResponse>>;
  /**
   * Extension wiring point (tasks, SEP-2663): set when this tools/call may run as a task — the tool declares
   * task support and the client declared the extension. Undefined otherwise: the handler then runs inline.
   */
  readonly task?: TaskContext;
}

/** A tools/call that may run detached as a task (agentforge/extensions/tasks). */
export interface TaskContext {
  /** The task's id once it exists; undefined while the call still answers its own request. */
  readonly taskId: string | undefined;
  /** Answers the request with a CreateTaskResult now; the handler goes on as the task. Resolves to its id. */
  detach(): Promise<string>;
  /** Sets the task's `statusMessage` (seen on tasks/get and notifications/tasks). */
  status(message: string): Promise<void>;
}

export interface InputOptions {
  /** The `inputRequests` key (2026-07-28). Default: the method's short name and the call's ordinal. */
  key?: string;
}

export type ToolHandler<Args = Record<string, unknown>> = (
  args: Args,
  context: HandlerContext,
) => CallToolResult | Promise<CallToolResult>;

export interface ToolConfig extends CacheHints {
  title?: string;
  description?: string;
  inputSchema?: SchemaInput;
  outputSchema?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JSONObject;
  /** Capabilities the handler needs: checked before it runs, so a client without them sees no side effect. */
  requiredClientCapabilities?: ClientCapabilities;
}

export interface ResourceMetadata extends CacheHints {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: { audience?: Array<'user' | 'assistant'>; priority?: number; lastModified?: string };
  icons?: Icon[];
  _meta?: JSONObject;
}

export type ResourceHandler = (
  uri: string,
  context: HandlerContext,
) => ReadResourceContentsResult | Promise<ReadResourceContentsResult>;

export type ResourceTemplateHandler = (
  uri: string,
  variables: UriVariables,
  context: HandlerContext,
) => ReadResourceContentsResult | Promise<ReadResourceContentsResult>;

export type ReadResourceContentsResult = Pick<ReadResourceResult, 'contents'> & { _meta?: JSONObject };

export interface CompletionContext {
  /** Other arguments already filled in (completion/complete `context.arguments`). */
  readonly arguments: Record<string, string>;
}

/** Suggestions for one argument or template variable; at most 100 are sent (the spec's cap). */
export type Completer = (value: string, context: CompletionContext) => string[] | Promise<string[]>;

export interface ResourceTemplateConfig extends ResourceMetadata {
  /** Completion of the template's variables, by variable name. */
  complete?: Record<string, Completer>;
  /** Enumerates concrete resources of this template for resources/list. */
  list?: () =>
    | Array<{ uri: string; name: string } & ResourceMetadata>
    | Promise<Array<{ uri: string; name: string } & ResourceMetadata>>;
}

export interface PromptConfig extends CacheHints {
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JSONObject;
  /** Completion of argument values, by argument name. */
  complete?: Record<string, Completer>;
}

export type PromptHandler = (
  args: Record<string, string>,
  context: HandlerContext,
) => GetPromptResult | Promise<GetPromptResult>;

/** Returned by every register* call. Every change fires the matching list_changed notification. */
export interface RegisteredHandle<Update> {
  readonly name: string;
  readonly enabled: boolean;
  update(changes: Update): void;
  enable(): void;
  disable(): void;
  remove(): void;
}
