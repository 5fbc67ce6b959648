import type { OAuthClientProvider } from '../auth/client/provider.js';
import type { Transport } from '../jsonrpc/transport.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  JSONObject,
  LoggingLevel,
  Root,
} from '../mcp/types.js';
import type { StdioServerParameters } from '../transports/stdio/client.js';
import type { Logger } from '../util/logger.js';
import type { ResultCache } from './cache.js';
import type { ClientMiddleware } from './pipeline.js';
import type { EraCache, TransportKindCache } from './server-caches.js';

/** What the server asked for, and on whose behalf: the request that needed input (or none, legacy push). */
export interface InputContext {
  /** The client request that is waiting for this input (tools/call, prompts/get, resources/read), if known. */
  readonly relatedMethod?: string;
  /** The `inputRequests` key the server gave this input (2026-07-28 MRTR); absent for a server-initiated request. */
  readonly key?: string;
  readonly signal: AbortSignal;
}

/** The host's answers to server-to-client requests, in either era (MRTR input requests or legacy requests). */
export interface ClientHandlers {
  elicitation?: (params: ElicitRequestParams, context: InputContext) => ElicitResult | Promise<ElicitResult>;
  sampling?: (
    params: CreateMessageRequestParams,
    context: InputContext,
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  roots?: (context: InputContext) => Root[] | Promise<Root[]>;
}

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
   * (`context.connecting`); see `ClientRequestContext` (src/client/pipeline.ts) for the order and the contract.
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

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxTotalTimeoutMs?: number;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** W3C traceparent for this call (`_meta.traceparent`). */
  traceparent?: string;
  /** tools/call is never retried after a connection failure unless this is set. */
  retry?: boolean;
  /**
   * The capabilities this request declares instead of the client's (2026-07-28 `_meta`, every MRTR round): a
   * gateway forwards its caller's. A handshake-era session declared its capabilities at initialize; unused there.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * Answers this call's MRTR input requests (2026-07-28 `input_required`) instead of the client's handlers: a
   * gateway asks the caller the call is made for. A handshake-era server's own requests still go to the client's.
   */
  handlers?: ClientHandlers;
}

export interface RequestOptionsLite {
  signal?: AbortSignal;
  timeoutMs?: number;
  traceparent?: string;
}

export type StdioTarget = StdioServerParameters;
export type ConnectTarget = StdioTarget | string | URL | Transport;

export type Params = JSONObject;
