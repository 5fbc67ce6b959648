import type { OAuthClientProvider } from '../auth/client/provider.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { ClientCapabilities, Implementation, JSONObject, LoggingLevel } from '../mcp/types.js';
import type { StdioServerParameters } from '../transports/stdio/client.js';
import type { Logger } from '../util/logger.js';
import type { ResultCache } from './cache.js';
import type { EraCache, TransportKindCache } from './server-caches.js';
import type { ClientHandlers, ClientMiddleware, TraceContext } from './contracts.js';

export type { ClientHandlers, InputContext } from './contracts.js';

export interface RestartPolicy {
  /** Reconnection attempts after an unexpected close (default 3). */
  maxAttempts?: number;
  /** First backoff; doubles per attempt (default 500 ms). */
  backoffMs?: number;
  /** Cap on one backoff (default 10 s). */
  maxBackoffMs?: number;
}

export type HttpTransportKind = 'streamable-http' | 'sse' | 'auto';

export interface ClientOptions {
  clientInfo?: Implementation;
  /** Aborts connecting: the half-open connection is closed (a spawned server is shut down), never leaked. */
  signal?: AbortSignal;
  /** Declared capabilities; by default derived from the handlers given. */
  capabilities?: ClientCapabilities;
  handlers?: ClientHandlers;
  /** Per-request timeout (default 60 s); progress restarts it, up to `maxTotalTimeoutMs`. */
  timeoutMs?: number;
  /** Hard cap per call, however much progress is reported; for MRTR, across all rounds (default 10 min). */
  maxTotalTimeoutMs?: number;
  /** Timeout of the `server/discover` probe and of `initialize` (default 5 s for the probe, 30 s for initialize). */
  probeTimeoutMs?: number;
  initializeTimeoutMs?: number;
  /** Pin a protocol version: no era probe, no fallback. */
  protocolVersion?: string;
  /** Added to every HTTP request. */
  headers?: Record<string, string>;
  /**
   * OAuth 2.1 for a protected HTTP server (agentforge/auth): its token goes on every HTTP request, and a 401 or
   * 403 insufficient_scope runs discovery, authorization, refresh or step-up, then retries the request.
   */
  oauth?: OAuthClientProvider;
  transport?: HttpTransportKind;
  /** Cap on one HTTP response body or SSE event (default 16 MiB). */
  maxResponseBytes?: number;
  logger?: Logger;
  /** Minimum server log level: `_meta` logLevel (2026-07-28) or logging/setLevel (handshake era). */
  logLevel?: LoggingLevel;
  /** Restart a dead stdio server and re-subscribe (off by default). */
  restart?: RestartPolicy;
  /** Result cache honouring ttlMs/cacheScope; `false` disables caching. Default: a private per-client cache. */
  cache?: ResultCache | false;
  /** Rounds of input_required answered per call before giving up (default 10). */
  maxInputRounds?: number;
  /** The active trace's W3C traceparent, read per request (OpenTelemetry glue); a call's own wins. */
  traceparent?: () => string | undefined;
  /** Stderr lines of a stdio server. */
  onstderr?: (line: string) => void;
  /**
   * Request middleware, run outermost around every round trip the client makes, those of connecting included
   * (`context.connecting`); see src/client/pipeline.ts for the order and `ClientRequestContext` for the contract.
   */
  middleware?: readonly ClientMiddleware[];
  /**
   * Which era each server spoke last time, so a reconnect skips the probe. Default: `defaultEraCache`, shared by
   * every client in the process; pass `new EraCache()` to isolate a client.
   */
  eraCache?: EraCache;
  /**
   * Which HTTP transport each endpoint answered last time (an HTTP+SSE server skips the Streamable HTTP attempt).
   * Default: `defaultTransportKindCache`, shared by every client in the process.
   */
  transportKindCache?: TransportKindCache;
}

export type { TraceContext } from './contracts.js';

export interface RequestOptionsLite extends TraceContext {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type StdioTarget = StdioServerParameters;
export type ConnectTarget = StdioTarget | string | URL | Transport;

/**
 * A remote server as an mcp.json entry names it (Claude Desktop, Cursor, VS Code): its URL, the headers to send,
 * and `type` `sse` for the legacy HTTP+SSE transport (`http` / `streamable-http`: Streamable HTTP only).
 * `McpClient.connect` takes it as it takes a URL; `ClientOptions.headers` are added over the entry's.
 */
export interface UrlTarget {
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly type?: 'http' | 'streamable-http' | 'sse';
}

export type Params = JSONObject;
