import { type Logger, silentLogger } from '../../../util/logger.js';
import type { HttpAuthGuard } from './auth.js';
import type { BodyLimits } from './exchange.js';
import type { EventStore, SessionRelay, SessionStore } from './session-store.js';

export interface HttpServerOptions {
  /**
   * The MCP endpoint path. Requests to other paths (except the legacy SSE paths) get 404. Default: any path is the
   * MCP endpoint (mount the handler where you like); `listen()` defaults it to '/mcp'.
   */
  path?: string;
  /**
   * Hosts accepted in the `Host` header (DNS-rebinding protection). An entry with a port matches exactly, one
   * without matches any port. Default: localhost, 127.0.0.1, [::1]. `false` disables the check (behind a proxy
   * that validates it).
   */
  allowedHosts?: readonly string[] | false;
  /**
   * Origins accepted in the `Origin` header, when one is sent: a full origin ('https://app.example.com') matches
   * exactly, a bare host name matches any scheme and port. Default: the localhost names. `false` disables.
   */
  allowedOrigins?: readonly string[] | false;
  /** Largest accepted request body, in bytes (default 4 MiB); larger ones get 413 before any parsing. */
  maxBodyBytes?: number;
  /**
   * How long a request body may take to arrive once the headers are in (default 30 s); a body
   * still incomplete then gets 408 and its connection is closed, so a stalled sender holds no buffer.
   */
  bodyTimeoutMs?: number;
  /** Handshake-era sessions live at most this long without traffic (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /** Concurrent handshake-era sessions (Streamable HTTP and HTTP+SSE together); past it, 503 (default 1000). */
  maxSessions?: number;
  /** Events kept per SSE stream for `Last-Event-ID` resumption (default 256, oldest dropped). */
  maxEventsPerStream?: number;
  /** The SSE `retry` field (ms) sent with priming events, telling clients when to reconnect (default 1000). */
  retryMs?: number;
  /** SSE comment keep-alive interval on open streams (default 15 s; 0 disables). */
  keepAliveMs?: number;
  /**
   * The 2024-11-05 HTTP+SSE transport: GET `ssePath` opens the stream, POST `messagesPath?sessionId=` carries
   * messages. Default on, at '/sse' and '/messages'. `false` disables.
   */
  legacySse?: false | { ssePath?: string; messagesPath?: string };
  /**
   * Protects every route (both eras, HTTP+SSE) with an auth guard: `bearerAuth(...)` from agentforge/auth/server
   * (OAuth 2.1 bearer tokens, RFC 9728 metadata). Default: none, the endpoint is open.
   */
  auth?: HttpAuthGuard;
  /**
   * Where handshake-era sessions are recorded, so that a session initialized through one instance continues
   * through any other (default: none, a session lives on the instance that opened it). `RedisSessionStore` from
   * agentforge/redis shares them.
   */
  sessionStore?: SessionStore;
  /**
   * Where every SSE event of those sessions is appended, so a `Last-Event-ID` resumption works on any instance
   * (default: none, each stream replays from its own instance's memory). `RedisEventStore` shares them.
   */
  eventStore?: EventStore;
  /**
   * Relays what a client POSTs to an instance that cannot use it to the one that can, so sessions need no
   * sticky balancing (default: none): a 2024-11-05 HTTP+SSE POST to the instance holding the session's stream
   * (else 404), and a handshake-era client's answer to a server-initiated request (elicitation, sampling,
   * roots) to the instance whose handler asked. `RedisSessionStore` relays over Redis pub/sub.
   */
  sessionRelay?: SessionRelay;
  logger?: Logger;
}

export interface ResolvedOptions {
  readonly path: string | undefined;
  readonly allowedHosts: HostMatcher | undefined;
  readonly allowedOrigins: OriginMatcher | undefined;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  /** The two above as readBody takes them (one object, not one per request). */
  readonly bodyLimits: BodyLimits;
  readonly sessionIdleTimeoutMs: number;
  readonly maxSessions: number;
  readonly maxEventsPerStream: number;
  readonly retryMs: number;
  readonly keepAliveMs: number;
  readonly ssePath: string | undefined;
  readonly messagesPath: string | undefined;
  readonly auth: HttpAuthGuard | undefined;
  readonly sessionStore: SessionStore | undefined;
  readonly eventStore: EventStore | undefined;
  readonly sessionRelay: SessionRelay | undefined;
  /**
   * Names this instance's streams: '' alone, a random tag when streams are shared, so event ids minted by
   * different instances never collide and name the stream (and instance) they belong to.
   */
  readonly streamTag: string;
  readonly logger: Logger;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;
export const LOCALHOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Host names (lowercase, IPv6 in brackets) with optional exact host:port entries. */
export interface HostMatcher {
  readonly anyPort: ReadonlySet<string>;
  readonly exact: ReadonlySet<string>;
}

export interface OriginMatcher {
  readonly hosts: HostMatcher;
  readonly exactOrigins: ReadonlySet<string>;
}

function hostMatcher(entries: readonly string[]): HostMatcher {
  const anyPort = new Set<string>();
  const exact = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const { hostname, port } = splitHost(entry);
    if (port === undefined) anyPort.add(hostname);
    else exact.add(entry);
  }
  return { anyPort, exact };
}

/** Splits 'name:port' / '[v6]:port' / 'name' (already lowercase). */
export function splitHost(host: string): { hostname: string; port: string | undefined } {
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close === -1) return { hostname: host, port: undefined };
    const rest = host.slice(close + 1);
    return { hostname: host.slice(0, close + 1), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const colon = host.indexOf(':');
  if (colon === -1 || host.indexOf(':', colon + 1) !== -1) return { hostname: host, port: undefined };
  return { hostname: host.slice(0, colon), port: host.slice(colon + 1) };
}

export function resolveOptions(options: HttpServerOptions = {}): ResolvedOptions {
  const legacy = options.legacySse;
  const originEntries = options.allowedOrigins === undefined ? LOCALHOST_NAMES : options.allowedOrigins;
  const maxBodyBytes = positive(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
  const bodyTimeoutMs = positive(options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS);
  return {
    path: options.path,
    allowedHosts:
      options.allowedHosts === false ? undefined : hostMatcher(options.allowedHosts ?? LOCALHOST_NAMES),
    allowedOrigins:
      originEntries === false
        ? undefined
        : {
            hosts: hostMatcher(originEntries.filter((entry) => !entry.includes('://'))),
            exactOrigins: new Set(
              originEntries
                .filter((entry) => entry.includes('://'))
                .map((entry) => entry.trim().toLowerCase()),
            ),
          },
    maxBodyBytes,
    bodyTimeoutMs,
    bodyLimits: Object.freeze({ maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs }),
    sessionIdleTimeoutMs: positive(options.sessionIdleTimeoutMs, 30 * 60_000),
    maxSessions: positive(options.maxSessions, 1000),
    maxEventsPerStream: positive(options.maxEventsPerStream, 256),
    retryMs: positive(options.retryMs, 1000),
    keepAliveMs: options.keepAliveMs === undefined ? 15_000 : Math.max(0, options.keepAliveMs),
    ssePath: legacy === false ? undefined : (legacy?.ssePath ?? '/sse'),
    messagesPath: legacy === false ? undefined : (legacy?.messagesPath ?? '/messages'),
    auth: options.auth,
    sessionStore: options.sessionStore,
    eventStore: options.eventStore,
    sessionRelay: options.sessionRelay,
    streamTag: options.sessionStore || options.eventStore ? globalThis.crypto.randomUUID().slice(0, 8) : '',
    logger: options.logger ?? silentLogger,
  };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
