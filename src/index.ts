export * from './jsonrpc/index.js';
export * from './mcp/index.js';
