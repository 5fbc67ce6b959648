/**
 * The agent host: many MCP servers behind one tool registry, the tool loop with middleware and approval,
 * and the provider-neutral model interface the providers implement.
 */
export * from './model.js';
export { type AgentOptions, type RunOptions, Agent } from './agent.js';
export {
  type ApprovalAnswer,
  type ApprovalGateOptions,
  type ApprovalPolicy,
  type ApprovalRequest,
  type Approver,
  ApprovalGate,
  lineDiff,
  parseApprovalPolicy,
} from './approval.js';
export { type AuditEntry, type AuditSink, auditMiddleware, fileAuditSink } from './audit.js';
export type {
  ClientEvent,
  ConnectContext,
  Connector,
  HostClient,
  ProgressListener,
  ServerRequestHandlers,
  TaskUpdate,
  ToolCallOptions,
  ToolProgress,
} from './client-surface.js';
export {
  type HostConfig,
  type HttpTransportMode,
  type LoadConfigOptions,
  type ParseConfigOptions,
  type ServerApproval,
  type ServerConfig,
  type ServerTarget,
  ConfigError,
  loadConfig,
  parseConfig,
} from './config.js';
export { type ClientConnectorOptions, clientConnector, mcpClientConnector } from './connect.js';
export { DEMO_MODEL_ID, DEMO_MODEL_LABEL, DemoModel } from './demo-model.js';
export {
  type AgentEvent,
  type RunResult,
  type RunStopReason,
  type ToolCallRecord,
  eventStream,
} from './events.js';
export { globToRegExp } from './glob.js';
export {
  type CallToolOptions,
  type HostEvent,
  type HostOptions,
  type HostRequestHandlers,
  McpHost,
} from './host.js';
export {
  type AgentMiddleware,
  type ApprovalDecision,
  type ApprovalRecord,
  type ApprovalSource,
  type Middleware,
  type ModelContext,
  type ModelMiddleware,
  type Next,
  type ToolContext,
  type ToolMiddleware,
  type ToolOutcome,
  type ToolStatus,
  afterModel,
  afterTool,
  beforeModel,
  beforeTool,
  compose,
  deniedOutcome,
} from './middleware.js';
export { type OfferedSkill, skillsContext } from './skills.js';
export type { AgentRunStart, AgentTracing } from './tracing.js';
export { LLM_NAME_PATTERN, type ToolNamer, assignNames, prefixedName, sanitizeName } from './naming.js';
export { type RegisteredTool, type RegistryChange, type ServerSnapshot, ToolRegistry } from './registry.js';
export {
  Bm25Ranker,
  EmbeddingRanker,
  SEARCH_TOOL_NAME,
  type ToolRanker,
  ToolSearch,
  type ToolSearchOptions,
} from './tool-search.js';
export { type ResultLimits, toResultParts } from './results.js';
export type { SamplingOptions } from './sampling.js';
export type { RetryPolicy, ServerState, ServerStatus } from './server-slot.js';
export { TRANSCRIPT_SCHEMA, TRANSCRIPT_VERSION, toTranscript } from './transcript.js';
export { ServerLogs, type ServerLogsOptions, defaultServerLogDir } from './server-logs.js';
