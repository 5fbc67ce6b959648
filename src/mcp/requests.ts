/**
 * Every MCP request and notification, keyed by method, for every revision from 2024-11-05 to 2026-07-28: what
 * each takes and what it answers, who sends it, and the revisions that define it. The one place the protocol's
 * methods are typed: `Connection<ClientRequests>` / `Connection<ServerRequests>` and the client's methods read
 * it. Checked against spec/<revision>/schema.json by test/mcp/requests.test.ts.
 */
import type { ProtocolVersion } from './revisions.js';
import type {
  CallToolResult,
  CancelledNotificationParams,
  ClientCapabilities,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  Cursor,
  DiscoverResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  InputRequiredResult,
  InputResponses,
  JSONObject,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListRootsResult,
  ListToolsResult,
  LoggingLevel,
  LoggingMessageParams,
  ProgressNotificationParams,
  ReadResourceResult,
  ResultBase,
  SubscriptionFilter,
} from './types.js';

/** `_meta` any request may carry; on 2026-07-28 client requests it holds the protocol version and capabilities. */
export interface RequestParamsBase extends JSONObject {
  _meta?: JSONObject;
}

export interface PaginatedRequestParams extends RequestParamsBase {
  cursor?: Cursor;
}

export interface InitializeRequestParams extends RequestParamsBase {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

/** 2026-07-28 basic/patterns/mrtr: a retry carries the answers and the state the server sealed. */
export interface InputRetryParams {
  inputResponses?: InputResponses;
  requestState?: string;
}

export interface CallToolRequestParams extends RequestParamsBase, InputRetryParams {
  name: string;
  arguments?: JSONObject;
}

export interface ReadResourceRequestParams extends RequestParamsBase, InputRetryParams {
  uri: string;
}

export interface GetPromptRequestParams extends RequestParamsBase, InputRetryParams {
  name: string;
  arguments?: Record<string, string>;
}

export interface ResourceRequestParams extends RequestParamsBase {
  uri: string;
}

export type CompletionReference =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

export interface CompleteRequestParams extends RequestParamsBase {
  ref: CompletionReference;
  argument: { name: string; value: string };
  /** 2025-06-18: arguments already filled in. */
  context?: { arguments?: Record<string, string> };
}

export interface SetLevelRequestParams extends RequestParamsBase {
  level: LoggingLevel;
}

/** 2026-07-28 basic/patterns/subscriptions. */
export interface SubscriptionsListenRequestParams extends RequestParamsBase {
  notifications: SubscriptionFilter;
}

/**
 * A final result of an MRTR method: `resultType` is "complete" or absent, so `resultType === 'input_required'`
 * tells it from an InputRequiredResult.
 */
export type Completed<R extends ResultBase> = R & { resultType?: 'complete' };

/** A result with nothing but the common fields (ping, resources/subscribe, logging/setLevel...). */
export type EmptyResult = ResultBase;

/**
 * One entry per request method: `params` (with `| undefined` where the request may omit them) and `result`.
 * The three MRTR methods may answer `input_required` on 2026-07-28. Deliberately absent: the 2025-11-25 tasks
 * methods (tasks/get, tasks/result, tasks/list, tasks/cancel), which this project does not implement (the
 * tasks extension, github.com/modelcontextprotocol/ext-tasks, owns them).
 */
export type McpRequests = {
  initialize: { params: InitializeRequestParams; result: InitializeResult };
  ping: { params: RequestParamsBase | undefined; result: EmptyResult };
  'server/discover': { params: RequestParamsBase | undefined; result: DiscoverResult };
  'tools/list': { params: PaginatedRequestParams | undefined; result: ListToolsResult };
  'tools/call': { params: CallToolRequestParams; result: Completed<CallToolResult> | InputRequiredResult };
  'resources/list': { params: PaginatedRequestParams | undefined; result: ListResourcesResult };
  'resources/templates/list': {
    params: PaginatedRequestParams | undefined;
    result: ListResourceTemplatesResult;
  };
  'resources/read': {
    params: ReadResourceRequestParams;
    result: Completed<ReadResourceResult> | InputRequiredResult;
  };
  'resources/subscribe': { params: ResourceRequestParams; result: EmptyResult };
  'resources/unsubscribe': { params: ResourceRequestParams; result: EmptyResult };
  'prompts/list': { params: PaginatedRequestParams | undefined; result: ListPromptsResult };
  'prompts/get': { params: GetPromptRequestParams; result: Completed<GetPromptResult> | InputRequiredResult };
  'completion/complete': { params: CompleteRequestParams; result: CompleteResult };
  'logging/setLevel': { params: SetLevelRequestParams; result: EmptyResult };
  /** The result ends the subscription gracefully; until then the stream carries notifications. */
  'subscriptions/listen': { params: SubscriptionsListenRequestParams; result: EmptyResult };
  'sampling/createMessage': { params: CreateMessageRequestParams; result: CreateMessageResult };
  'elicitation/create': { params: ElicitRequestParams; result: ElicitResult };
  'roots/list': { params: RequestParamsBase | undefined; result: ListRootsResult };
};

export interface NotificationParamsBase extends JSONObject {
  _meta?: JSONObject;
}

/** One entry per notification method. Deliberately absent: notifications/tasks/status (tasks, see above). */
export type McpNotifications = {
  'notifications/initialized': { params: NotificationParamsBase | undefined };
  'notifications/cancelled': { params: CancelledNotificationParams };
  'notifications/progress': { params: ProgressNotificationParams };
  'notifications/message': { params: LoggingMessageParams };
  'notifications/tools/list_changed': { params: NotificationParamsBase | undefined };
  'notifications/resources/list_changed': { params: NotificationParamsBase | undefined };
  'notifications/resources/updated': { params: NotificationParamsBase & { uri: string } };
  'notifications/prompts/list_changed': { params: NotificationParamsBase | undefined };
  'notifications/roots/list_changed': { params: NotificationParamsBase | undefined };
  'notifications/subscriptions/acknowledged': {
    params: NotificationParamsBase & { notifications: SubscriptionFilter };
  };
  /** The one notification whose params the schema (2025-11-25) gives no `_meta`. */
  'notifications/elicitation/complete': { params: JSONObject & { elicitationId: string } };
};

export type RequestMethod = keyof McpRequests;
export type NotificationMethod = keyof McpNotifications;
export type RequestParams<M extends RequestMethod> = McpRequests[M]['params'];
export type RequestResult<M extends RequestMethod> = McpRequests[M]['result'];
export type NotificationParams<M extends NotificationMethod> = McpNotifications[M]['params'];

/** Which side sends a message, and the revisions that define it (`until` absent: still current). */
export interface MethodSpec {
  readonly sender: 'client' | 'server' | 'both';
  readonly since: ProtocolVersion;
  readonly until?: ProtocolVersion;
}

const HANDSHAKE_ONLY = { since: '2024-11-05', until: '2025-11-25' } as const;
const ALWAYS = { since: '2024-11-05' } as const;
const STATELESS_ONLY = { since: '2026-07-28' } as const;

export const REQUESTS = {
  initialize: { sender: 'client', ...HANDSHAKE_ONLY },
  ping: { sender: 'both', ...HANDSHAKE_ONLY },
  'server/discover': { sender: 'client', ...STATELESS_ONLY },
  'tools/list': { sender: 'client', ...ALWAYS },
  'tools/call': { sender: 'client', ...ALWAYS },
  'resources/list': { sender: 'client', ...ALWAYS },
  'resources/templates/list': { sender: 'client', ...ALWAYS },
  'resources/read': { sender: 'client', ...ALWAYS },
  'resources/subscribe': { sender: 'client', ...HANDSHAKE_ONLY },
  'resources/unsubscribe': { sender: 'client', ...HANDSHAKE_ONLY },
  'prompts/list': { sender: 'client', ...ALWAYS },
  'prompts/get': { sender: 'client', ...ALWAYS },
  'completion/complete': { sender: 'client', ...ALWAYS },
  'logging/setLevel': { sender: 'client', ...HANDSHAKE_ONLY },
  'subscriptions/listen': { sender: 'client', ...STATELESS_ONLY },
  'sampling/createMessage': { sender: 'server', ...ALWAYS },
  'elicitation/create': { sender: 'server', since: '2025-06-18' },
  'roots/list': { sender: 'server', ...ALWAYS },
} as const satisfies { readonly [M in RequestMethod]: MethodSpec };

export const NOTIFICATIONS = {
  'notifications/initialized': { sender: 'client', ...HANDSHAKE_ONLY },
  'notifications/cancelled': { sender: 'both', ...ALWAYS },
  'notifications/progress': { sender: 'both', ...ALWAYS },
  'notifications/message': { sender: 'server', ...ALWAYS },
  'notifications/tools/list_changed': { sender: 'server', ...ALWAYS },
  'notifications/resources/list_changed': { sender: 'server', ...ALWAYS },
  'notifications/resources/updated': { sender: 'server', ...ALWAYS },
  'notifications/prompts/list_changed': { sender: 'server', ...ALWAYS },
  'notifications/roots/list_changed': { sender: 'client', ...HANDSHAKE_ONLY },
  'notifications/subscriptions/acknowledged': { sender: 'server', ...STATELESS_ONLY },
  'notifications/elicitation/complete': { sender: 'server', since: '2025-11-25', until: '2025-11-25' },
} as const satisfies { readonly [M in NotificationMethod]: MethodSpec };

type SentBy<Table, Side extends 'client' | 'server'> = {
  [M in keyof Table]: Table[M] extends { sender: Side | 'both' } ? M : never;
}[keyof Table];

export type ClientRequestMethod = SentBy<typeof REQUESTS, 'client'>;
export type ServerRequestMethod = SentBy<typeof REQUESTS, 'server'>;
/** What a client sends: the request map of a client's connection (`Connection<ClientRequests>`). */
export type ClientRequests = Pick<McpRequests, ClientRequestMethod>;
/** What a server sends: the request map of a server's connection and of its handlers' contexts. */
export type ServerRequests = Pick<McpRequests, ServerRequestMethod>;
