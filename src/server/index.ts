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
 * on a 2026-07-28 request: the handler is written once.
 */
export {
  McpServer,
  type McpServerInfo,
  type McpServerOptions,
  type StatelessRequestContext,
} from './server.js';
export type { ServerSession } from './session.js';
export {
  type ExtensionMethodHandler,
  type ExtensionRequest,
  type ServerExtension,
  type ToolCallInterception,
  declaresExtension,
} from './extension.js';

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
  TaskContext,
  ToolConfig,
  ToolHandler,
} from './types.js';
export {
  type FetchHandler,
  type FetchHandlerContext,
  type HttpServerOptions,
  type ListenOptions,
  type Listening,
  type NodeHandler,
  createFetchHandler,
  createNodeHandler,
  listen,
} from './http.js';
