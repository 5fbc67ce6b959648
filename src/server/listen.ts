/** Streamable HTTP (both eras) and HTTP+SSE on node:http, bound to an address: `McpServer.listen` and `listen`. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  HttpAuthGuard,
  HttpMcpServer,
  HttpServerOptions,
  NodeHandler,
} from '../transports/http/server/index.js';
import { LOCALHOST_NAMES } from '../transports/http/server/options.js';
import { loadHttpTransport } from './lazy-http.js';

export interface ListenOptions extends Omit<HttpServerOptions, 'auth'> {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: 2025-11-25 basic/transports security — local servers bind to localhost only. */
  host?: string;
  /** The MCP endpoint path (default '/mcp'). */
  path?: string;
  /**
   * An auth guard (`bearerAuth(...)` from agentforge/auth/server), or a function making one from the endpoint's
   * URL once bound: a server on port 0 learns its canonical resource URL only then.
   */
  auth?: HttpAuthGuard | ((url: string) => HttpAuthGuard);
}

export interface Listening {
  /** The MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  readonly url: string;
  readonly port: number;
  readonly httpServer: Server;
  /** Ends every session, closes open connections and stops listening. */
  close(): Promise<void>;
}

/**
 * Bound to one specific address, that address is a legitimate Host too (a literal IP cannot be rebound; a
 * rebinding page sends its own name). Wildcard binds add nothing: configure `allowedHosts` for those.
 */
function hostsFor(
  host: string,
  configured: HttpServerOptions['allowedHosts'],
): HttpServerOptions['allowedHosts'] {
  if (configured !== undefined) return configured;
  if (host === '0.0.0.0' || host === '::' || LOCALHOST_NAMES.includes(host)) return undefined;
  return [...LOCALHOST_NAMES, host.includes(':') && !host.startsWith('[') ? `[${host}]` : host];
}

/** A node:http server bound to an address and serving one handler. */
export interface BoundHandler {
  readonly httpServer: Server;
  readonly port: number;
  /** The bound address as a URL origin, e.g. http://127.0.0.1:3000 (IPv6 in brackets). */
  readonly origin: string;
  /** Closes the handler (its sessions), then open connections, then stops listening; once. */
  close(): Promise<void>;
}

/**
 * Binds to `host:port`, then makes the handler from the bound address (a server on port 0 learns its URL only
 * then). A handler that fails to build releases the port before the error propagates.
 */
export async function bindHandler(
  host: string,
  port: number,
  handlerFor: (origin: string, hostPart: string) => NodeHandler,
): Promise<BoundHandler> {
  const { createServer } = await import('node:http');
  const httpServer = createServer();
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${hostPart}:${address.port}`;
  // Bound before the handler exists: no request is read until 'request' has its listener, later in this tick.
  let handler: NodeHandler;
  try {
    handler = handlerFor(origin, hostPart);
  } catch (error) {
    httpServer.close();
    throw error;
  }
  httpServer.on('request', handler);
  let closing: Promise<void> | undefined;
  return {
    httpServer,
    port: address.port,
    origin,
    close() {
      closing ??= (async () => {
        await handler.close();
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

/** Serves an MCP server over Streamable HTTP (both eras) and HTTP+SSE on node:http. */
export async function listenOn(server: HttpMcpServer, options: ListenOptions = {}): Promise<Listening> {
  const { port = 0, host = '127.0.0.1', path = '/mcp', auth, ...rest } = options;
  // Loaded here, not at the top: this module also exports the fetch form, which must load where node:http is absent;
  // and a stdio server loads no HTTP code at all.
  const { createNodeHandler } = await loadHttpTransport();
  const bound = await bindHandler(host, port, (origin) => {
    const url = `${origin}${path}`;
    return createNodeHandler(server, {
      ...rest,
      path,
      allowedHosts: hostsFor(host, rest.allowedHosts),
      ...(auth === undefined ? {} : { auth: typeof auth === 'function' ? auth(url) : auth }),
    });
  });
  return {
    url: `${bound.origin}${path}`,
    port: bound.port,
    httpServer: bound.httpServer,
    close: bound.close,
  };
}
