/** Streamable HTTP (both eras) and HTTP+SSE on node:http, bound to an address: `McpServer.listen` and `listen`. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type HttpMcpServer,
  type HttpServerOptions,
  LOCALHOST_NAMES,
  createNodeHandler,
} from '../transports/http/server/index.js';

export interface ListenOptions extends HttpServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: 2025-11-25 basic/transports security — local servers bind to localhost only. */
  host?: string;
  /** The MCP endpoint path (default '/mcp'). */
  path?: string;
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

/** Serves an MCP server over Streamable HTTP (both eras) and HTTP+SSE on node:http. */
export async function listenOn(server: HttpMcpServer, options: ListenOptions = {}): Promise<Listening> {
  const { port = 0, host = '127.0.0.1', path = '/mcp', ...rest } = options;
  const handler = createNodeHandler(server, {
    ...rest,
    path,
    allowedHosts: hostsFor(host, rest.allowedHosts),
  });
  // Loaded here, not at the top: this module also exports the fetch form, which must load where node:http is absent.
  const { createServer } = await import('node:http');
  const httpServer = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostPart}:${address.port}${path}`,
    port: address.port,
    httpServer,
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
