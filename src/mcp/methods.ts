/** MCP method names, in the protocol's own words. */
export const Method = {
  Initialize: 'initialize',
  Ping: 'ping',
  Discover: 'server/discover',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  ResourcesList: 'resources/list',
  ResourcesTemplatesList: 'resources/templates/list',
  ResourcesRead: 'resources/read',
  ResourcesSubscribe: 'resources/subscribe',
  ResourcesUnsubscribe: 'resources/unsubscribe',
  PromptsList: 'prompts/list',
  PromptsGet: 'prompts/get',
  CompletionComplete: 'completion/complete',
  LoggingSetLevel: 'logging/setLevel',
  SubscriptionsListen: 'subscriptions/listen',
  SamplingCreateMessage: 'sampling/createMessage',
  ElicitationCreate: 'elicitation/create',
  RootsList: 'roots/list',
  TasksGet: 'tasks/get',
  TasksResult: 'tasks/result',
  TasksList: 'tasks/list',
  TasksCancel: 'tasks/cancel',
  TasksUpdate: 'tasks/update',
} as const;

export const Notification = {
  Initialized: 'notifications/initialized',
  Cancelled: 'notifications/cancelled',
  Progress: 'notifications/progress',
  Message: 'notifications/message',
  ToolsListChanged: 'notifications/tools/list_changed',
  ResourcesListChanged: 'notifications/resources/list_changed',
  ResourceUpdated: 'notifications/resources/updated',
  PromptsListChanged: 'notifications/prompts/list_changed',
  RootsListChanged: 'notifications/roots/list_changed',
  SubscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
  ElicitationComplete: 'notifications/elicitation/complete',
  TasksStatus: 'notifications/tasks/status',
  /** SEP-2663 (io.modelcontextprotocol/tasks): a task's DetailedTask, on subscriptions/listen. */
  Tasks: 'notifications/tasks',
} as const;

export type MethodName = (typeof Method)[keyof typeof Method];
export type NotificationName = (typeof Notification)[keyof typeof Notification];

/**
 * Requests that name one primitive; on 2026-07-28 HTTP the name travels in `Mcp-Name` too. SEP-2663 Streamable
 * HTTP: Routing Headers adds the tasks extension's methods, whose `Mcp-Name` is `params.taskId`.
 */
export const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  [Method.ToolsCall]: 'name',
  [Method.PromptsGet]: 'name',
  [Method.ResourcesRead]: 'uri',
  [Method.TasksGet]: 'taskId',
  [Method.TasksUpdate]: 'taskId',
  [Method.TasksCancel]: 'taskId',
};

/** 2026-07-28 basic/patterns/mrtr: the only requests whose result may be `input_required`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  Method.ToolsCall,
  Method.PromptsGet,
  Method.ResourcesRead,
]);

/** The server-to-client requests an `InputRequest` may carry. */
export const INPUT_REQUEST_METHODS: ReadonlySet<string> = new Set([
  Method.SamplingCreateMessage,
  Method.ElicitationCreate,
  Method.RootsList,
]);
