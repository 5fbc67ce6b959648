/**
 * MCP wire types, written once for every revision from 2024-11-05 to 2026-07-28. Fields a revision added are
 * optional; the revision that introduced them is noted where it matters. Checked against
 * ../shared/spec/<revision>/schema.json by test/mcp/schema.test.ts.
 */
import type { RequestId } from '../jsonrpc/messages.js';
import type { ResultType } from './result-type.js';

export type JSONObject = Record<string, unknown>;
export type Cursor = string;
export type ProgressToken = string | number;
export type Role = 'user' | 'assistant';
export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';
export type CacheScope = 'public' | 'private';

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ClientCapabilities {
  experimental?: Record<string, JSONObject>;
  roots?: { listChanged?: boolean };
  sampling?: { context?: JSONObject; tools?: JSONObject };
  elicitation?: { form?: JSONObject; url?: JSONObject };
  tasks?: JSONObject;
  extensions?: Record<string, JSONObject>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: Record<string, JSONObject>;
  logging?: JSONObject;
  completions?: JSONObject;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  tasks?: JSONObject;
  extensions?: Record<string, JSONObject>;
  [key: string]: unknown;
}

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: JSONObject;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JSONObject;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JSONObject;
}
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: JSONObject;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: JSONObject;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: JSONObject;
}
export interface ResourceLink extends Resource {
  type: 'resource_link';
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JSONObject & { type: 'object' };
  outputSchema?: JSONObject & { type: 'object' };
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: JSONObject;
  _meta?: JSONObject;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JSONObject;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JSONObject;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JSONObject;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

/** Fields every result may carry. `resultType` is required from 2026-07-28 and absent before. */
export interface ResultBase {
  _meta?: JSONObject;
  resultType?: ResultType;
  [key: string]: unknown;
}

/** 2026-07-28 server/utilities/caching. */
export interface CacheableResult extends ResultBase {
  ttlMs?: number;
  cacheScope?: CacheScope;
}

export interface PaginatedResult extends CacheableResult {
  nextCursor?: Cursor;
}

export interface InitializeResult extends ResultBase {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/** 2026-07-28: serverInfo is not a field here; it travels in `_meta` (MetaKey.ServerInfo), as on every result. */
export interface DiscoverResult extends CacheableResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
}

export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}
export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}
export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}
export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}

export interface CallToolResult<Structured = unknown> extends ResultBase {
  content: ContentBlock[];
  /** Any JSON value on 2026-07-28; an object on 2025-06-18 and 2025-11-25. */
  structuredContent?: Structured;
  isError?: boolean;
}

export interface ReadResourceResult extends CacheableResult {
  contents: ResourceContents[];
}

export interface GetPromptResult extends ResultBase {
  description?: string;
  messages: PromptMessage[];
}

export interface CompleteResult extends ResultBase {
  completion: { values: string[]; total?: number; hasMore?: boolean };
}

/** Server-to-client requests, also carried inside `inputRequests` on 2026-07-28. */
export interface CreateMessageRequestParams extends JSONObject {
  _meta?: JSONObject;
  messages: Array<{ role: Role; content: unknown }>;
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: JSONObject;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  tools?: Tool[];
  toolChoice?: JSONObject;
  /** Provider-specific metadata passed through to the LLM provider. */
  metadata?: JSONObject;
}

export interface CreateMessageResult extends ResultBase {
  role: Role;
  content: unknown;
  model: string;
  stopReason?: string;
}

export interface ElicitRequestParams extends JSONObject {
  _meta?: JSONObject;
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: JSONObject;
  url?: string;
  elicitationId?: string;
}

export interface ElicitResult extends ResultBase {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: JSONObject;
}

export interface ListRootsResult extends ResultBase {
  roots: Root[];
}

/** 2026-07-28 basic/patterns/mrtr: one request the server needs the client to answer before it can finish. */
export type InputRequest =
  | { method: 'sampling/createMessage'; params: CreateMessageRequestParams }
  | { method: 'elicitation/create'; params: ElicitRequestParams }
  | { method: 'roots/list'; params?: JSONObject };

export type InputRequests = Record<string, InputRequest>;
export type InputResponse = CreateMessageResult | ElicitResult | ListRootsResult;
export type InputResponses = Record<string, InputResponse>;

export interface InputRequiredResult extends ResultBase {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
}

/** 2026-07-28 basic/patterns/subscriptions. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

export interface ProgressNotificationParams extends JSONObject {
  _meta?: JSONObject;
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message?: string;
}

export interface LoggingMessageParams extends JSONObject {
  _meta?: JSONObject;
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

export interface CancelledNotificationParams extends JSONObject {
  _meta?: JSONObject;
  requestId?: RequestId;
  reason?: string;
}

export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** True when a message at `level` passes a threshold of `threshold` (RFC 5424 severities). */
export function passesLogLevel(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);
}
