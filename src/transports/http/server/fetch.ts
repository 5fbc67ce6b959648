import { FetchExchange } from './fetch-exchange.js';
import { McpHttpHandler } from './handler.js';
import type { HttpServerOptions } from './options.js';
import type { HttpMcpServer } from './types.js';

export interface FetchHandlerContext {
  /** The caller's verified identity (from your auth middleware), handed to handlers as `extra.authInfo`. */
  authInfo?: unknown;
}

export type FetchHandler = ((request: Request, context?: FetchHandlerContext) => Promise<Response>) & {
  close(): Promise<void>;
};

/** The web-standard form, `(Request) => Promise<Response>`: Bun, Deno, Workers, or any fetch-style router. */
export function createFetchHandler(server: HttpMcpServer, options?: HttpServerOptions): FetchHandler {
  const handler = new McpHttpHandler(server, options);
  const handle = (request: Request, context?: FetchHandlerContext): Promise<Response> => {
    const exchange = new FetchExchange(request, context?.authInfo);
    void handler.handle(exchange);
    return exchange.response;
  };
  return Object.assign(handle, { close: () => handler.close() });
}
