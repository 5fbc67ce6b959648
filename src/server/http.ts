/**
 * The HTTP entry points of agentforge/server. They take an `McpServer` (reached through its internal seam) or any
 * object that implements the transport's `HttpMcpServer` contract itself.
 */
import type {
  FetchHandler,
  FetchHandlerContext,
  HttpMcpServer,
  HttpServerOptions,
  NodeHandler,
} from '../transports/http/server/index.js';
import { lazyFetchHandler, lazyNodeHandler } from './lazy-http.js';
import { type ListenOptions, type Listening, listenOn } from './listen.js';
import { seamOf } from './seam.js';
import type { McpServer } from './server.js';

export type {
  FetchHandler,
  FetchHandlerContext,
  HttpMcpServer,
  HttpServerOptions,
  ListenOptions,
  Listening,
  NodeHandler,
};

function httpSeam(server: McpServer | HttpMcpServer): HttpMcpServer {
  return seamOf(server) ?? (server as HttpMcpServer);
}

/** Streamable HTTP (both eras) and the 2024-11-05 HTTP+SSE transport as a web `(Request) => Response`. */
export function createFetchHandler(
  server: McpServer | HttpMcpServer,
  options?: HttpServerOptions,
): FetchHandler {
  return lazyFetchHandler(httpSeam(server), options);
}

/** The same on node:http, without web Request/Response on the hot path. */
export function createNodeHandler(
  server: McpServer | HttpMcpServer,
  options?: HttpServerOptions,
): NodeHandler {
  return lazyNodeHandler(httpSeam(server), options);
}

/** Serves an MCP server over Streamable HTTP (both eras) and HTTP+SSE on node:http. */
export function listen(server: McpServer | HttpMcpServer, options?: ListenOptions): Promise<Listening> {
  return listenOn(httpSeam(server), options);
}
