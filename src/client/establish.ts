/**
 * Connecting once: the transport for the target (Streamable HTTP first, then the HTTP+SSE fallback the spec
 * describes, remembered in the client's `TransportKindCache`), the connection on it, and negotiation.
 */
import { LocalError } from '../mcp/local-errors.js';
import { LATEST_HANDSHAKE_VERSION } from '../mcp/revisions.js';
import type { Logger } from '../util/logger.js';
import { type NegotiateOptions, type Negotiated, initialize, negotiate } from './era.js';
import { httpStatusOf, unwrapError } from './failures.js';
import { createLink, createTransport } from './link.js';
import { type HttpKind, defaultTransportKindCache } from './server-caches.js';
import type { StatelessCodec } from './stateless.js';
import type { ClientOptions, ConnectTarget } from './types.js';
import type { Link } from './contracts.js';

export interface EstablishHost {
  readonly target: ConnectTarget;
  readonly options: ClientOptions;
  readonly logger: Logger;
  readonly key: string;
}

export interface Established {
  link: Link;
  negotiated: Negotiated;
}

/** `wire` sets up the new link's handlers before it starts (no message can arrive unheard). */
export async function connectLink(
  host: EstablishHost,
  negotiation: NegotiateOptions,
  probe: StatelessCodec,
  wire: (link: Link) => void,
): Promise<Established> {
  const { target, options, key } = host;
  const kindCache = options.transportKindCache ?? defaultTransportKindCache;
  const http = typeof target === 'string' || target instanceof URL;
  const preferred = options.transport ?? 'auto';
  let kind: HttpKind | undefined = http ? (preferred === 'auto' ? kindCache.get(key) : preferred) : undefined;
  kind ??= http ? 'streamable-http' : undefined;
  let established: Established;
  try {
    established = await connectWith(host, kind, negotiation, probe, wire);
  } catch (error) {
    const status = httpStatusOf(error)?.status;
    const fallback =
      http &&
      kind === 'streamable-http' &&
      preferred === 'auto' &&
      (status === 400 || status === 404 || status === 405);
    // What this endpoint spoke last time is no longer known: the next connect detects again.
    kindCache.delete(key);
    if (!fallback) throw unwrapError(error);
    // 2026-07-28 streamable-http: Backward Compatibility, HTTP+SSE (2024-11-05).
    host.logger.debug(`Streamable HTTP POST failed with ${status}; trying the HTTP+SSE transport`);
    established = await connectWith(host, 'sse', negotiation, probe, wire).catch((sseError: unknown) => {
      // Not an HTTP+SSE server either: the Streamable HTTP failure is the one that explains it.
      host.logger.debug('HTTP+SSE fallback failed', sseError);
      throw unwrapError(error);
    });
  }
  if (http && kind) kindCache.set(key, established.link.kind === 'sse' ? 'sse' : 'streamable-http');
  return established;
}

async function connectWith(
  host: EstablishHost,
  kind: HttpKind | undefined,
  negotiation: NegotiateOptions,
  probe: StatelessCodec,
  wire: (link: Link) => void,
): Promise<Established> {
  const { options } = host;
  const created = createTransport(host.target, kind, options, host.logger);
  const link = createLink(created.transport, created.kind, host.key, options);
  wire(link);
  const signal = options.signal;
  const onAbort = () => void link.connection.close().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  let negotiated: Negotiated;
  try {
    if (signal?.aborted) throw signal.reason;
    await link.connection.start();
    negotiated =
      created.kind === 'sse'
        ? // HTTP+SSE exists only in the handshake era: no probe.
          await initialize(link, options.protocolVersion ?? LATEST_HANDSHAKE_VERSION, negotiation)
        : await negotiate(link, probe, negotiation);
  } catch (error) {
    await link.connection.close().catch(() => {});
    throw signal?.aborted ? signal.reason : error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  // Only an established link is the client's: one that dies while negotiating fails this attempt instead.
  if (link.connection.closed)
    throw new LocalError('connection_closed', 'the server went away right after connecting');
  return { link, negotiated };
}
