/**
 * The part of `McpClient` the host uses. Naming it keeps the host honest about its needs and lets a
 * `Connector` hand in anything with this shape (the real client in production, a pinned-version client,
 * a client wrapped with logging).
 */
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ServerCapabilities,
  Tool,
} from '../mcp/types.js';
import type { ClientHandlers } from '../client/types.js';
import type { ServerConfig } from './config.js';

/** Progress the server reports for one call (basic/utilities/progress). */
export type ProgressListener = (progress: { progress: number; total?: number; message?: string }) => void;

export type ClientEvent = 'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged' | 'close';

export interface HostClient {
  readonly era?: 'handshake' | 'stateless';
  readonly protocolVersion?: string;
  readonly serverInfo?: Implementation;
  readonly serverCapabilities?: ServerCapabilities;
  readonly instructions?: string;
  listTools(options?: { signal?: AbortSignal }): Promise<Tool[]>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: ToolCallOptions,
  ): Promise<CallToolResult>;
  listResources(options?: { signal?: AbortSignal }): Promise<Resource[]>;
  readResource(params: { uri: string }, options?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  listPrompts(options?: { signal?: AbortSignal }): Promise<Prompt[]>;
  getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: { signal?: AbortSignal },
  ): Promise<GetPromptResult>;
  /** Liveness without any cache in the way (`ping`, or an uncached `server/discover`). */
  ping?(options?: { signal?: AbortSignal }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where a tool call's answer goes, from the call's own reaction (McpHost.callToolInto): an object per call
 * rather than a pair of closures at each layer it passes. Neither method throws.
 */
export interface CallSink {
  answered(result: CallToolResult): void;
  failed(error: unknown): void;
}

/** One notifications/progress of a request (basic/utilities/progress), as the server sent it. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface ToolCallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** Asks the server for notifications/progress (a progressToken rides in `_meta`) and hears each one. */
  readonly onprogress?: (progress: ToolProgress) => void;
  /** Each status of this call when the server runs it as a task (SEP-2663). */
  readonly ontask?: (update: TaskUpdate) => void;
  /** What this call declares instead of the client's capabilities (2026-07-28 `_meta`). */
  readonly clientCapabilities?: ClientCapabilities;
  /** Answers this call's MRTR input requests instead of the client's handlers. */
  readonly handlers?: ClientHandlers;
  /** W3C trace context (`_meta.traceparent`): a gateway carries its caller's across the hop. */
  readonly traceparent?: string;
}

/** A tool call the server runs as a task (SEP-2663): each status it goes through. */
export interface TaskUpdate {
  readonly tool: string;
  readonly taskId: string;
  readonly status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  readonly statusMessage?: string;
}

/** Requests a server sends to the host while serving (elicitation, sampling), tagged with the server. */
export interface ServerRequestHandlers {
  elicitation?(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult>;
  sampling?(params: CreateMessageRequestParams, signal: AbortSignal): Promise<CreateMessageResult>;
  /** Extension wiring point (tasks): a task-backed tool call changed status. */
  task?(update: TaskUpdate): void;
}

export interface ConnectContext {
  readonly handlers: ServerRequestHandlers;
  /** Called for the client's list-changed notifications and when the connection closes (with why, if known). */
  readonly onEvent: (event: ClientEvent, reason?: string) => void;
  readonly signal: AbortSignal;
  /** Each line the server writes to stderr (stdio servers), for its log file. */
  readonly onStderr?: (line: string) => void;
  /**
   * The least severe server log the host wants: logging/setLevel on handshake sessions, `_meta` logLevel on
   * 2026-07-28 requests. Without it no level is asked for.
   */
  readonly logLevel?: LoggingLevel;
  /** Each notifications/message the server sends. */
  readonly onLog?: (message: LoggingMessageParams) => void;
}

/** Opens one server's client. The host applies timeouts and retries around it. */
export type Connector = (config: ServerConfig, context: ConnectContext) => Promise<HostClient>;
