/** agentforge: the layers most programs need, from one import. Finer entry points: agentforge/<layer>. */
export { McpClient } from './client/index.js';
export type { ClientHandlers, ClientOptions, ConnectTarget } from './client/index.js';
export * from './jsonrpc/index.js';
export * from './mcp/index.js';
export { McpServer, listen } from './server/index.js';
export type { HandlerContext, McpServerOptions, ToolConfig } from './server/index.js';
