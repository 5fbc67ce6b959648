import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpHandler } from './handler.js';
import { NodeExchange } from './node-exchange.js';
import type { HttpServerOptions } from './options.js';
import type { HttpMcpServer } from './types.js';

export type NodeHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** Ends every session and stream this handler holds. */
  close(): Promise<void>;
};

/**
 * The node:http form: no web Request/Response on the way (headers read from `req.headers`, body read under the
 * cap and parsed once, answers written with writeHead + end).
 */
export function createNodeHandler(server: HttpMcpServer, options?: HttpServerOptions): NodeHandler {
  const handler = new McpHttpHandler(server, options);
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const exchange = new NodeExchange(req, res);
    // node emits 'request' when the headers are parsed, before the parser reaches the body that came in the
    // same read; one microtask later that body is buffered and is read at once (NodeExchange.readBody).
    queueMicrotask(() => void handler.handle(exchange));
  };
  return Object.assign(handle, { close: () => handler.close() });
}
