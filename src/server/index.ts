export { McpServer, type McpServerInfo, type McpServerOptions, type StatelessRequestContext } from './server.js';
export type { ServerSession } from './session.js';
export type { RequestStateOptions } from './request-state.js';
export { DualEraChannel } from './stdio.js';
export type {
  AuthInfo,
  CacheHints,
  Completer,
  CompletionContext,
  HandlerContext,
  InputOptions,
  PromptConfig,
  PromptHandler,
  ReadResourceContentsResult,
  RegisteredHandle,
  ResourceHandler,
  ResourceMetadata,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
  SchemaInput,
  StandardSchema,
  ToolConfig,
  ToolHandler,
} from './types.js';
