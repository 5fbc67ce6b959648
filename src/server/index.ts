/**
 * agentforge/server: an MCP server for every revision from 2024-11-05 to 2026-07-28.
 *
 * ```ts
 * const server = new McpServer({ name: 'weather', version: '1.0.0' });
 * server.registerTool('forecast', { description: 'Forecast for a city', inputSchema: z.object({ city: z.string() }) },
 *   async ({ city }, ctx) => {
 *     const ok = await ctx.elicit({ message: `Look up ${city}?`, requestedSchema: { type: 'object', properties: {} } });
 *     return { content: [{ type: 'text', text: ok.action === 'accept' ? `Sunny in ${city}` : 'Cancelled' }] };
 *   });
 * await server.serveStdio();          // both eras on stdio
 * await server.listen({ port: 3000 }); // or Streamable HTTP (+ legacy HTTP+SSE) on 127.0.0.1:3000/mcp
 * ```
 * `ctx.elicit` is a server-initiated request on a handshake session and an `input_required` round trip (MRTR)
 * on a 2026-07-28 request: the handler is written once. `server.use(extension)` adds an extension's methods (see
 * `ServerExtension`) to the one route table both eras dispatch from.
 */
export { McpServer, type McpServerInfo, type McpServerOptions } from './server.js';
export {
  type ExtensionMethod,
  type ListenAttachment,
  type ListenRequest,
  type ServerExtension,
  type ToolCallInterception,
  declaresExtension,
} from './extension.js';
export type { StatelessRequestContext } from '../mcp/request-context.js';
export type { ServerSession } from './session.js';
export type { ListFilter, ListKind } from './core.js';

export type { IncomingRequest, RequestHook } from './request-hook.js';
export type {
  RequestStateKey,
  RequestStateKeyRing,
  RequestStateOptions,
} from './request-state.js';
export {
  type EventBus,
  InMemoryEventBus,
  type ServerEvent,
  type ServerEventListener,
  readServerEvent,
} from './event-bus.js';
export {
  InMemoryOneTimeStateStore,
  type InMemoryOneTimeStateStoreOptions,
  type OneTimeStateStore,
} from './one-time-state.js';
export type {
  AuthInfo,
  CacheHints,
  Completer,
  CompletionContext,
  HandlerContext,
  InputOptions,
  PromptArgs,
  PromptConfig,
  PromptHandler,
  ReadResourceContentsResult,
  RegisteredHandle,
  ResourceHandler,
  ResourceMetadata,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
  SchemaInput,
  SchemaValue,
  StandardSchema,
  TaskContext,
  ToolArgs,
  ToolConfig,
  ToolHandler,
  ToolResult,
  ToolStructuredContent,
} from './types.js';
export type { FromJsonSchema } from '../mcp/json-schema-type.js';
export type { InferInput, InferOutput, StandardSchemaV1 } from '../mcp/standard-schema.js';
export {
  type FetchHandler,
  type FetchHandlerContext,
  type HttpMcpServer,
  type HttpServerOptions,
  type ListenOptions,
  type Listening,
  type NodeHandler,
  createFetchHandler,
  createNodeHandler,
  listen,
} from './http.js';
