/**
 * The HTTP server transport (a third of the server's modules) is loaded on first use, not with agentforge/server:
 * a stdio server never loads it. The handlers here are usable at once and hand requests on once it has loaded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  FetchHandler,
  FetchHandlerContext,
  HttpMcpServer,
  HttpServerOptions,
  NodeHandler,
} from '../transports/http/server/index.js';

type HttpTransport = typeof import('../transports/http/server/index.js');
let httpTransport: Promise<HttpTransport> | undefined;

/** The HTTP server transport, imported once per process on first use. */
export function loadHttpTransport(): Promise<HttpTransport> {
  httpTransport ??= import('../transports/http/server/index.js');
  return httpTransport;
}

/**
 * A node:http handler usable at once: requests that arrive before the transport has loaded wait for it (an
 * IncomingMessage is not read until its handler attaches), then go to the real handler.
 */
export function lazyNodeHandler(server: HttpMcpServer, options?: HttpServerOptions): NodeHandler {
  let handler: NodeHandler | undefined;
  const ready = loadHttpTransport().then((http) => {
    handler = http.createNodeHandler(server, options);
    return handler;
  });
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (handler) handler(req, res);
    else
      ready.then(
        (loaded) => loaded(req, res),
        () => {
          res.statusCode = 500;
          res.end();
        },
      );
  };
  return Object.assign(handle, { close: () => ready.then((loaded) => loaded.close()) });
}

/** The web `(Request) => Response` form, on the same terms. */
export function lazyFetchHandler(server: HttpMcpServer, options?: HttpServerOptions): FetchHandler {
  let handler: FetchHandler | undefined;
  const ready = loadHttpTransport().then((http) => {
    handler = http.createFetchHandler(server, options);
    return handler;
  });
  const handle = (request: Request, context?: FetchHandlerContext): Promise<Response> =>
    handler ? handler(request, context) : ready.then((loaded) => loaded(request, context));
  return Object.assign(handle, { close: () => ready.then((loaded) => loaded.close()) });
}
