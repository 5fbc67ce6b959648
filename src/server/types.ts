import type { RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import type { Era } from '../mcp/revisions.js';
import type {
  CacheScope,
  CallToolResult,
  ClientCapabilities,
  GetPromptResult,
  Icon,
  Implementation,
  InputRequest,
  InputResponse,
  JSONObject,
  LoggingLevel,
  PromptArgument,
  ReadResourceResult,
  ToolAnnotations,
} from '../mcp/types.js';
import type { FromJsonSchema } from '../mcp/json-schema-type.js';
import type { RequestParams, RequestResult } from '../mcp/requests.js';
import type { InferInput, InferOutput, StandardSchemaV1 } from '../mcp/standard-schema.js';
import type { UriVariables } from '../mcp/uri-template.js';

/** Caching hints (2026-07-28 server/utilities/caching), per server, tool, prompt or resource. */
export interface CacheHints {
  ttlMs?: number;
  cacheScope?: CacheScope;
}

/** A Standard Schema (https://standardschema.dev): zod 4, valibot, arktype... */
export type StandardSchema = StandardSchemaV1;

/** A plain JSON Schema object (2020-12 unless `$schema` names draft-07) or any Standard Schema. */
export type SchemaInput = JSONObject | StandardSchemaV1;

/**
 * The value a schema describes: a Standard Schema's `types.output` (what validation hands the handler) or
 * `types.input` (what the handler must produce, for an outputSchema), or the type a JSON Schema literal maps to.
 */
export type SchemaValue<Schema, Role extends 'input' | 'output'> = Schema extends StandardSchemaV1
  ? Role extends 'input'
    ? InferOutput<Schema>
    : InferInput<Schema>
  : FromJsonSchema<Schema>;

/** An object type as is; anything else (`unknown` from a schema that is not a literal) becomes `Fallback`. */
type ObjectOr<Value, Fallback> = unknown extends Value
  ? Fallback
  : [Value] extends [Record<string, unknown>]
    ? Value
    : Fallback;

/** A tool's `args`: the type its inputSchema describes; `Record<string, unknown>` when nothing more is known. */
export type ToolArgs<Input> = [Input] extends [undefined]
  ? Record<string, unknown>
  : ObjectOr<SchemaValue<Input, 'input'>, Record<string, unknown>>;

/**
 * A tool's `structuredContent`: the type its outputSchema describes; `undefined` (no constraint) when it has
 * none or when the config's type leaves it open (a variable typed `ToolConfig`).
 */
export type ToolStructuredContent<Output> = [Output] extends [undefined]
  ? undefined
  : [SchemaInput] extends [Output]
    ? undefined
    : SchemaValue<Output, 'output'>;

/** A prompt's `args`: the type its argsSchema describes, else the strings prompts/get carries. */
export type PromptArgs<Schema> = [Schema] extends [undefined]
  ? Record<string, string>
  : ObjectOr<SchemaValue<Schema, 'input'>, Record<string, string>>;

/**
 * The caller as a resource-server guard verified it (agentforge/auth/server): the facts of an OAuth access
 * token. The token itself is not among them unless the guard was told to expose it, so a handler cannot pass
 * it on to an upstream API by accident (2026-07-28 basic/authorization: Token Passthrough is forbidden).
 */
export interface AuthInfo {
  /** `sub`: the user the token speaks for (for client_credentials, often the client itself). */
  readonly subject: string | undefined;
  /** `iss`: the authorization server that issued it. */
  readonly issuer: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
  /** `exp`, seconds since the epoch. */
  readonly expiresAt: number | undefined;
  /** Every claim of the JWT, or every member of the introspection response. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The raw access token, only with the guard's `exposeToken` option. */
  readonly token?: string;
}

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
  /** The verified caller, when the transport's auth guard put one in `extra.authInfo` (see AuthInfo). */
  readonly auth: AuthInfo | undefined;
  /**
   * The caller's stable id (issuer, subject, client), the one thing state is bound to: requestState, sessions
   * and, later, tasks. Undefined when the request is not authenticated.
   */
  readonly principal: string | undefined;
  /** Whatever the transport or a middleware in front attached, as is (`auth` is this, when it is an AuthInfo). */
  readonly authInfo: unknown;
  /** The transport's facts about this message (headers, session id, SSE controls). */
  readonly extra: MessageExtra | undefined;
  /** The request's `_meta`; read-only (frozen and shared when a client repeats it: src/jsonrpc/repeated-meta.ts). */
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
  elicit(
    params: RequestParams<'elicitation/create'>,
    options?: InputOptions,
  ): Promise<RequestResult<'elicitation/create'>>;
  sample(
    params: RequestParams<'sampling/createMessage'>,
    options?: InputOptions,
  ): Promise<RequestResult<'sampling/createMessage'>>;
  listRoots(options?: InputOptions): Promise<RequestResult<'roots/list'>>;
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

/**
 * What a tool handler returns. With an outputSchema, `structuredContent` is required and typed by it, except on
 * an error result (the server checks the same at runtime: server/tools "Output Schema").
 */
export type ToolResult<Structured = undefined> = [Structured] extends [undefined]
  ? CallToolResult
  : CallToolResult<Structured> &
      ({ isError: true } | { isError?: false | undefined; structuredContent: Structured });

export type ToolHandler<Args = Record<string, unknown>, Structured = undefined> = (
  args: Args,
  context: HandlerContext,
) => ToolResult<Structured> | Promise<ToolResult<Structured>>;

export interface ToolConfig<
  Input extends SchemaInput | undefined = SchemaInput | undefined,
  Output extends SchemaInput | undefined = SchemaInput | undefined,
> extends CacheHints {
  title?: string;
  description?: string;
  /** Types the handler's `args` (a Standard Schema, or a JSON Schema literal). */
  inputSchema?: Input;
  /** Types the handler's `structuredContent`, which the server validates against it. */
  outputSchema?: Output;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JSONObject;
  /** Capabilities the handler needs: checked before it runs, so a client without them sees no side effect. */
  requiredClientCapabilities?: ClientCapabilities;
  /**
   * OAuth scopes a call needs, over HTTP with an auth guard: a token without them gets 403 insufficient_scope
   * naming them (2026-07-28 basic/authorization: Scope Challenge Handling), before the handler runs.
   */
  requiredScopes?: readonly string[];
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

export interface PromptConfig<ArgsSchema extends SchemaInput | undefined = SchemaInput | undefined>
  extends CacheHints {
  title?: string;
  description?: string;
  /** Listed as given; when absent and `argsSchema` is set, derived from its properties. */
  arguments?: PromptArgument[];
  /**
   * Types the handler's `args` and validates prompts/get arguments (an object schema whose properties are
   * strings, as prompt arguments are on the wire).
   */
  argsSchema?: ArgsSchema;
  icons?: Icon[];
  _meta?: JSONObject;
  /** Completion of argument values, by argument name. */
  complete?: Record<string, Completer>;
}

export type PromptHandler<Args = Record<string, string>> = (
  args: Args,
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
