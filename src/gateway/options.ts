/** What createGateway takes, and what it reports of clashing names. */
import type { HostConfig } from '../agent/config.js';
import type { HostOptions } from '../agent/host.js';
import type { ClientMiddleware } from '../client/contracts.js';
import type { RequestHook } from '../server/request-hook.js';
import type { RequestStateOptions } from '../server/request-state.js';
import type { Logger } from '../util/logger.js';
import type { GatewayAuditSink, PolicyRule, RateLimits } from './governance.js';
import type { GatewaySharedState } from './shared-state.js';
import type { UpstreamCredentialsHook } from './upstreams.js';

export interface GatewayOptions {
  readonly config: HostConfig;
  /** Namespace names with the server's (default true). `false` serves a single upstream with its exact names. */
  readonly prefix?: boolean;
  /** Offer `search_tools` (BM25 over the endpoint's tools) as a tool of the gateway. */
  readonly toolSearch?: boolean;
  /** Which principals may list and call which tools. */
  readonly policies?: readonly PolicyRule[];
  readonly rateLimits?: RateLimits;
  readonly audit?: GatewayAuditSink;
  /** Servers reached with each caller's own credentials, one connection per (server, principal). */
  readonly perPrincipal?: readonly string[];
  /** Those credentials: never shared between principals. Required with `perPrincipal`. */
  readonly upstreamCredentials?: UpstreamCredentialsHook;
  /** Servers `ready` waits for; default every enabled one. */
  readonly required?: readonly string[];
  /** The downstream server's name and version (default agentforge-gateway). */
  readonly info?: { readonly name: string; readonly version: string };
  /** Sealing of the gateway's own requestState (2026-07-28 MRTR rounds it runs for its callers). */
  readonly requestState?: RequestStateOptions;
  /**
   * Policies may be added by `reload` later (the CLI watches its config file): lists are filtered per caller
   * from the start. Without it, and without policies, lists are served from their cache.
   */
  readonly dynamicPolicies?: boolean;
  /** Host options for the upstream connections: timeouts and retries. */
  readonly upstream?: Pick<HostOptions, 'connectTimeoutMs' | 'retry' | 'startupTimeoutMs' | 'serverLogs'>;
  /** How long an upstream request waits for a 2026-07-28 caller's next round (default 5 minutes). */
  readonly inputTimeoutMs?: number;
  /** Runs around every caller's request (`gatewayTracing()` from agentforge/otel: a SERVER span each). */
  readonly aroundRequest?: RequestHook;
  /**
   * Request middleware of each upstream connection, by server (`gatewayTracing()`: a CLIENT span per upstream
   * request, named after its server, the child of the caller's SERVER span).
   */
  readonly upstreamMiddleware?: (server: string) => readonly ClientMiddleware[];
  /**
   * State shared with the other instances of this gateway behind a balancer (agentforge/redis): rate-limit
   * buckets, task routes, cached resources/read results, and the bus forwarding MRTR retries to the instance
   * holding their upstream request. Default: this process alone. Give the instances the same
   * `requestState.keys` and a shared `requestState.oneTime` too, and a shared `sessionStore` and `eventStore`.
   */
  readonly shared?: GatewaySharedState;
  readonly logger?: Logger;
}

export interface Collision {
  readonly kind: string;
  readonly wanted: string;
  readonly given: string;
  readonly server: string;
}
