/**
 * The gateway on node:http: `/mcp` (every server) and `/mcp/<group>` (one group), each with Streamable HTTP for
 * both eras and the 2024-11-05 HTTP+SSE transport beside it (`/sse`, `/messages`; `/mcp/<group>/sse`, ...),
 * `/healthz` (the process is up) and `/readyz` (every required upstream is ready: 200, else 503).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAuthGuard } from '../transports/http/server/auth.js';
import { createNodeHandler, type NodeHandler } from '../server/http.js';
import { bindHandler } from '../server/listen.js';
import type { HttpServerOptions } from '../transports/http/server/options.js';
import type { Gateway } from './gateway.js';
import { keepSubjectTokens } from './subject-token.js';

export interface GatewayHttpOptions extends Omit<HttpServerOptions, 'auth' | 'path' | 'legacySse'> {
  /** Downstream auth (`bearerAuth(...)`), or a function making it from the gateway's URL once bound. */
  readonly auth?: HttpAuthGuard | ((url: string) => HttpAuthGuard);
  /** Serve the 2024-11-05 HTTP+SSE transport too (default true). */
  readonly legacySse?: boolean;
}

export interface GatewayListenOptions extends GatewayHttpOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
}

export interface GatewayListening {
  /** The every-server endpoint, e.g. http://127.0.0.1:3000/mcp. */
  readonly url: string;
  readonly port: number;
  /** The endpoint of a group. */
  urlOf(group: string): string;
  close(): Promise<void>;
}

/** The gateway's HTTP routes as one node:http request listener; `close()` ends every session. */
export function gatewayNodeHandler(
  gateway: Gateway,
  options: GatewayHttpOptions & { auth?: HttpAuthGuard },
): NodeHandler {
  const { legacySse = true, auth, ...rest } = options;
  // A caller's token kept by the guard is for token exchange only: handlers see authInfo without it.
  const guard = auth === undefined ? undefined : keepSubjectTokens(auth);
  const handlerFor = (group: string | undefined): NodeHandler => {
    const base = group === undefined ? '' : `/mcp/${group}`;
    return createNodeHandler(gateway.server(group)!, {
      ...rest,
      ...(guard === undefined ? {} : { auth: guard }),
      path: group === undefined ? '/mcp' : base,
      legacySse: legacySse ? { ssePath: `${base}/sse`, messagesPath: `${base}/messages` } : false,
    });
  };
  const main = handlerFor(undefined);
  const groups = new Map(gateway.groups.map((group) => [group, handlerFor(group)]));
  // A group a reload added gets its handler on its first request.
  const groupHandler = (name: string): NodeHandler | undefined => {
    let handler = groups.get(name);
    if (!handler && name !== '' && gateway.server(name)) {
      handler = handlerFor(name);
      groups.set(name, handler);
    }
    return handler;
  };
  const handler = ((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/healthz') return json(response, 200, { status: 'ok' });
    if (path === '/readyz') {
      const servers = gateway.host.servers().map((s) => ({
        name: s.name,
        state: s.state,
        ...(s.error === undefined ? {} : { error: s.error }),
      }));
      return json(response, gateway.ready ? 200 : 503, { ready: gateway.ready, servers });
    }
    if (path.startsWith('/mcp/')) {
      const group = groupHandler(groupName(path));
      if (group) return group(request, response);
      return json(response, 404, { error: `no group endpoint at ${path.slice(0, 100)}` });
    }
    return main(request, response);
  }) as NodeHandler;
  handler.close = async () => {
    await Promise.all([main.close(), ...[...groups.values()].map((group) => group.close())]);
  };
  return handler;
}

/** Listens on 127.0.0.1 (default) and serves the gateway's routes. */
export async function listenGateway(
  gateway: Gateway,
  options: GatewayListenOptions = {},
): Promise<GatewayListening> {
  const { port = 0, host = '127.0.0.1', auth, ...rest } = options;
  const bound = await bindHandler(host, port, (origin, hostPart) =>
    gatewayNodeHandler(gateway, {
      ...rest,
      ...(rest.allowedHosts === undefined && !['127.0.0.1', 'localhost', '::1'].includes(host)
        ? { allowedHosts: ['localhost', '127.0.0.1', '[::1]', hostPart] }
        : {}),
      ...(auth === undefined ? {} : { auth: typeof auth === 'function' ? auth(`${origin}/mcp`) : auth }),
    }),
  );
  return {
    url: `${bound.origin}/mcp`,
    port: bound.port,
    urlOf: (group) => `${bound.origin}/mcp/${encodeURIComponent(group)}`,
    close: bound.close,
  };
}

/** The `<group>` of /mcp/<group>[/...]; '' for none or a malformed escape. */
function groupName(path: string): string {
  try {
    return decodeURIComponent(path.split('/')[2] ?? '');
  } catch {
    return '';
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}
