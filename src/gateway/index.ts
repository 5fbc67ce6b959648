/**
 * agentforge/gateway: the servers of an mcp.json served as one MCP server.
 *
 * ```ts
 * const gateway = await createGateway({ config: await loadConfig('mcp.json') });
 * const listening = await listenGateway(gateway, { port: 3000 }); // /mcp, /mcp/<group>, /healthz, /readyz
 * ```
 * Upstreams are connected and supervised by the host (agentforge/agent); tools, resources, templates and prompts
 * are namespaced as the host names tools (`server__tool`) and served from the gateway's registry. A 2025-era
 * caller can use a 2026-only upstream and the other way round: input requests cross in each side's own form.
 */
export {
  type Collision,
  Gateway,
  type GatewayOptions,
  createGateway,
} from './gateway.js';
export {
  type GatewayHttpOptions,
  type GatewayListenOptions,
  type GatewayListening,
  gatewayNodeHandler,
  listenGateway,
} from './http.js';
export {
  type Caller,
  type GatewayAuditEntry,
  type GatewayAuditSink,
  type PolicyRule,
  RATE_LIMITED,
  type RateLimit,
  type RateLimits,
  RateLimiter,
  ToolPolicy,
} from './governance.js';
export { FORBIDDEN } from './forward.js';
export {
  type CachedResponse,
  InMemoryResponseCache,
  type InMemoryResponseCacheOptions,
  type ResponseCache,
} from './response-cache.js';
export { type GatewayAuthSettings, type GatewaySettings, parseGatewaySettings } from './settings.js';
export type { UpstreamCredentials, UpstreamCredentialsHook } from './upstreams.js';
export {
  type GatewayBus,
  type GatewaySharedState,
  InMemoryTaskRouteStore,
  type RateLimitRefusal,
  type RateLimitStore,
  type StoredTaskRoute,
  type TaskRouteStore,
  type TokenBucket,
} from './shared-state.js';
