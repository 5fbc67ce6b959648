/**
 * Negotiation: which era does the server speak, and so which codec does the client use? 2026-07-28
 * basic/versioning: Backward Compatibility. On stdio the client probes with server/discover and falls back to
 * initialize on any non-modern error or a timeout (on the same process); on HTTP the modern request's 400 body
 * decides. The answer is a property of the server: it is kept in the client's `EraCache` per stdio command line
 * and per HTTP endpoint, and re-probed when the cached assumption fails. Every request made here goes through
 * the client's middleware (`NegotiateOptions.send`).
 */
import type { Result } from '../jsonrpc/connection.js';
import { RpcError } from '../jsonrpc/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { LocalError } from '../mcp/local-errors.js';
import { Method, Notification } from '../mcp/methods.js';
import { LATEST_HANDSHAKE_VERSION, eraOf, handshakeVersions, isSupportedVersion } from '../mcp/revisions.js';
import type { ClientCapabilities, Implementation } from '../mcp/types.js';
import { HttpStatusError } from '../transports/http/client/errors.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { withTimeout } from '../util/abort.js';
import type { Logger } from '../util/logger.js';
import type { HandshakeCodec } from './handshake.js';
import { readServerIdentity } from './result-shapes.js';
import type { EraCache } from './server-caches.js';
import {
  type StatelessCodec,
  isModernError,
  pickStatelessVersion,
  supportedVersionsOf,
} from './stateless.js';
import type { ClientEraCodec, Link, ServerState } from './contracts.js';

export interface NegotiateOptions {
  pinnedVersion: string | undefined;
  probeTimeoutMs: number;
  initializeTimeoutMs: number;
  clientInfo: Implementation;
  /** Capabilities for the initialize request (the handshake era declares them once). */
  handshakeCapabilities: (version: string) => ClientCapabilities;
  logger: Logger;
  /** What the client learned about servers' eras (shared by default: `defaultEraCache`). */
  eraCache: EraCache;
  /** Sends one connect-time request (or notifications/initialized) through the client's middleware. */
  send: NegotiationSend;
  /** The handshake codec for a negotiated version. */
  handshakeCodec(version: string): HandshakeCodec;
}

export type NegotiationSend = (
  link: Link,
  codec: ClientEraCodec,
  kind: 'request' | 'notification',
  method: string,
  params: Record<string, unknown> | undefined,
  timeoutMs: number | undefined,
) => Promise<Result>;

/** The outcome of negotiation: what the server said about itself, and the codec of its era. */
export interface Negotiated {
  state: ServerState;
  codec: ClientEraCodec;
}

/**
 * Not modern: fall back to initialize. Errors that say nothing about the era (no server at all) are rethrown.
 * A timeout is a legacy signal only on stdio-like links; on HTTP the status and body decide.
 */
function isLegacySignal(error: unknown, http: boolean): boolean {
  if (isModernError(error)) return false;
  if (error instanceof RpcError) return true;
  if (!(error instanceof LocalError)) return false;
  if (error.code === 'timeout') return !http;
  const status = error instanceof HttpStatusError ? error : error.cause;
  // Streamable HTTP: a 4xx without a modern error body means legacy. Authentication, throttling and server
  // failures say nothing about the era.
  return (
    status instanceof HttpStatusError &&
    status.status >= 400 &&
    status.status < 500 &&
    !NOT_ERA_STATUSES.has(status.status)
  );
}

const NOT_ERA_STATUSES = new Set([401, 403, 407, 408, 429]);

export async function negotiate(
  link: Link,
  codec: StatelessCodec,
  options: NegotiateOptions,
): Promise<Negotiated> {
  const pinned = options.pinnedVersion;
  if (pinned !== undefined) {
    if (!isSupportedVersion(pinned)) throw new TypeError(`unsupported protocol version ${pinned}`);
    if (eraOf(pinned) === 'stateless') {
      codec.version = pinned;
      return { state: await discover(link, codec, options.initializeTimeoutMs, options), codec };
    }
    return initialize(link, pinned, options);
  }
  const http = link.kind === 'streamable-http';
  const { eraCache } = options;
  const cached = eraCache.get(link.key);
  if (cached?.era === 'handshake') {
    try {
      return await initialize(link, cached.version, options);
    } catch (error) {
      if (!isLegacySignal(error, http) && !isModernError(error)) throw error;
      eraCache.delete(link.key);
      // The failed initialize switched the HTTP transport to sessions; the probe is a modern request again.
      if (link.transport instanceof StreamableHttpClientTransport) link.transport.mode = 'stateless';
      options.logger.debug(`cached handshake era for ${link.key} no longer holds; probing again`);
    }
  }
  if (cached?.era === 'stateless') codec.version = cached.version;
  let state: ServerState | undefined;
  let fallbackVersion: string = LATEST_HANDSHAKE_VERSION;
  try {
    const timeoutMs = http ? options.initializeTimeoutMs : options.probeTimeoutMs;
    state = await discover(link, codec, timeoutMs, options);
  } catch (error) {
    // A modern server whose `supported` list names only handshake-era versions: use one of them.
    const listed = newestHandshakeVersion(supportedVersionsOf(error));
    if (listed !== undefined) fallbackVersion = listed;
    else if (!isLegacySignal(error, http)) throw error;
    else options.logger.debug(`server/discover probe says legacy: ${(error as Error).message}`);
  }
  const negotiated =
    state === undefined || state.era === 'handshake'
      ? await initialize(link, fallbackVersion, options)
      : { state, codec };
  eraCache.set(link.key, { era: negotiated.state.era, version: negotiated.state.protocolVersion });
  return negotiated;
}

/** server/discover: its result names versions, capabilities and identity (2026-07-28 server/discover). */
export async function discover(
  link: Link,
  codec: StatelessCodec,
  timeoutMs: number,
  options: NegotiateOptions,
): Promise<ServerState> {
  const result = await options.send(link, codec, 'request', Method.Discover, undefined, timeoutMs);
  const supported = result.supportedVersions;
  // A reply without a version list is not a DiscoverResult (a legacy server answering anything with {}).
  if (!Array.isArray(supported)) return legacyMarker();
  const version = supported.includes(codec.version) ? codec.version : pickStatelessVersion(supported);
  if (version === undefined) {
    if (handshakeVersions().some((v) => supported.includes(v))) return legacyMarker();
    throw new LocalError(
      'protocol_error',
      `no mutually supported protocol version; the server supports ${supported.join(', ')}`,
    );
  }
  codec.version = version;
  const meta = result._meta as Record<string, unknown> | undefined;
  const serverInfo = result.serverInfo ?? meta?.[MetaKey.ServerInfo];
  return {
    era: 'stateless',
    protocolVersion: version,
    ...readServerIdentity(result, serverInfo, link.key, Method.Discover),
    supportedVersions: supported.filter((v): v is string => typeof v === 'string'),
  };
}

function newestHandshakeVersion(supported: unknown[] | undefined): string | undefined {
  return supported === undefined ? undefined : handshakeVersions().find((v) => supported.includes(v));
}

function legacyMarker(): ServerState {
  return {
    era: 'handshake',
    protocolVersion: '',
    serverInfo: undefined,
    capabilities: {},
    instructions: undefined,
  };
}

/** basic/lifecycle: initialize, check the version the server chose, then notifications/initialized. */
export async function initialize(
  link: Link,
  version: string,
  options: NegotiateOptions,
): Promise<Negotiated> {
  const http = link.transport instanceof StreamableHttpClientTransport ? link.transport : undefined;
  if (http) {
    http.mode = 'session';
    http.resetSession();
  }
  const params = {
    protocolVersion: version,
    capabilities: options.handshakeCapabilities(version),
    clientInfo: options.clientInfo,
  };
  const requested = options.handshakeCodec(version);
  const timeoutMs = options.initializeTimeoutMs;
  const result = await options.send(link, requested, 'request', Method.Initialize, params, timeoutMs);
  const chosen = result.protocolVersion;
  if (!isSupportedVersion(chosen) || eraOf(chosen) !== 'handshake') {
    throw new LocalError(
      'protocol_error',
      `the server chose protocol version ${String(chosen)}, which this client does not speak`,
    );
  }
  const identity = readServerIdentity(result, result.serverInfo, link.key, Method.Initialize);
  if (http) http.protocolVersion = chosen;
  const codec = chosen === version ? requested : options.handshakeCodec(chosen);
  // A POST of the notification that is never answered (HTTP) must not hang the connect.
  await withTimeout(
    options.send(link, codec, 'notification', Notification.Initialized, undefined, timeoutMs),
    timeoutMs,
    () => new LocalError('timeout', 'the server did not accept notifications/initialized in time'),
  );
  http?.openEventStream();
  return { state: { era: 'handshake', protocolVersion: chosen, ...identity }, codec };
}
