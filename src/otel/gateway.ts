/**
 * Tracing for the gateway (agentforge/gateway): a SERVER span for each caller's request (`serverTracing`) and,
 * inside it, a CLIENT span for the upstream request it makes (`clientTracing` on each upstream connection),
 * which names the upstream server. The CLIENT span is the SERVER span's child through the active context, and
 * its context goes upstream in `_meta`: one trace from the caller through the gateway to the upstream.
 */
import type { ClientMiddleware } from '../client/contracts.js';
import type { RequestHook } from '../server/request-hook.js';
import { clientTracing } from './client.js';
import type { TelemetryOptions } from './instruments.js';
import { serverTracing } from './server.js';

/** The attribute naming the upstream server a gateway's CLIENT span goes to. */
export const GATEWAY_UPSTREAM = 'agentforge.gateway.upstream';

export interface GatewayTracing {
  readonly aroundRequest: RequestHook;
  upstreamMiddleware(server: string): readonly ClientMiddleware[];
}

/** `createGateway({ config, ...gatewayTracing() })`. Without an SDK registered every hook steps aside. */
export function gatewayTracing(options: TelemetryOptions = {}): GatewayTracing {
  // One middleware per upstream server, shared by its per-principal connections (one instrument cache each).
  const upstreams = new Map<string, ClientMiddleware>();
  return {
    aroundRequest: serverTracing(options),
    upstreamMiddleware(server) {
      let middleware = upstreams.get(server);
      if (!middleware) {
        middleware = clientTracing({
          ...options,
          attributes: { ...options.attributes, [GATEWAY_UPSTREAM]: server },
        });
        upstreams.set(server, middleware);
      }
      return [middleware];
    },
  };
}
