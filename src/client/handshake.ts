/**
 * The handshake-era codec (2024-11-05..2025-11-25): the session was set up once by initialize, so a request is
 * sent as it is (a trace rides in `_meta.traceparent`), the log level is a logging/setLevel request, the server
 * asks for input with requests of its own instead of `input_required`, and subscriptions are resources/subscribe
 * plus the notifications the server pushes (on HTTP, on the session's GET stream).
 */
import type { Connection, Result } from '../jsonrpc/connection.js';
import { LocalError } from '../mcp/local-errors.js';
import { Method } from '../mcp/methods.js';
import type { LoggingLevel, SubscriptionFilter } from '../mcp/types.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { withTimeout } from '../util/abort.js';
import type { Logger } from '../util/logger.js';
import { writeTrace } from './trace.js';
import { rethrowUnwrapped } from './failures.js';
import { WithFailure } from './wire-options.js';
import type {
  ActiveSubscription,
  ClientEraCodec,
  ConnectSend,
  ServerState,
  SubscriptionWire,
  WireHost,
  WireRequestOptions,
} from './contracts.js';

export class HandshakeCodec implements ClientEraCodec {
  readonly era = 'handshake' as const;
  readonly pingMethod = Method.Ping;
  readonly subscriptions: SubscriptionWire = pushedWire;
  readonly version: string;
  readonly #logLevel: LoggingLevel | undefined;
  readonly #logger: Logger;

  constructor(version: string, logLevel: LoggingLevel | undefined, logger: Logger) {
    this.version = version;
    this.#logLevel = logLevel;
    this.#logger = logger;
  }

  send(
    connection: Connection,
    method: string,
    params: Record<string, unknown> | undefined,
    options: WireRequestOptions,
    tag?: unknown,
  ): Promise<Result> {
    let withTrace = params;
    if (options.traceparent) {
      const meta: Record<string, unknown> = { ...(params?._meta as object | undefined) };
      writeTrace(meta, options);
      withTrace = { ...params, _meta: meta };
    }
    return connection.requestTagged(method, withTrace, this.#unwrapping.for(options), tag);
  }

  /** The transport's own failure is the caller's error: one shared `onfailure`, no reaction per call. */
  readonly #unwrapping = new WithFailure(rethrowUnwrapped);

  /** A request goes as it was given (a trace in `_meta` is written again from the same options). */
  callerParams(sent: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    return sent;
  }

  answersInput(): boolean {
    return false;
  }

  async afterConnect(state: ServerState, send: ConnectSend): Promise<void> {
    if (!this.#logLevel || !state.capabilities.logging) return;
    await send(Method.LoggingSetLevel, { level: this.#logLevel }).catch((error: unknown) => {
      this.#logger.warn('logging/setLevel failed', error);
    });
  }
}

/** Handshake-era subscriptions: URIs are registered, list changes arrive unasked as the capabilities promise. */
const pushedWire: SubscriptionWire = {
  async open(active: ActiveSubscription, host: WireHost): Promise<void> {
    const link = host.link();
    const uris = active.filter.resourceSubscriptions ?? [];
    const capabilities = host.state().capabilities;
    if (uris.length > 0 && capabilities.resources?.subscribe !== true) {
      throw new LocalError('protocol_error', 'the server does not support resource subscriptions');
    }
    for (const uri of uris) await host.send(Method.ResourcesSubscribe, { uri }, {});
    // Handshake-era HTTP delivers pushed notifications on the GET stream: wait until it is open, but not longer
    // than an acknowledgement may take (a server that never answers the GET must not hang subscribe).
    if (link.transport instanceof StreamableHttpClientTransport) {
      await withTimeout(link.transport.eventStreamReady(), host.ackTimeoutMs, () => new Error()).catch(
        () => undefined,
      );
    }
    const acknowledged: SubscriptionFilter = {};
    if (active.filter.toolsListChanged && capabilities.tools?.listChanged)
      acknowledged.toolsListChanged = true;
    if (active.filter.promptsListChanged && capabilities.prompts?.listChanged)
      acknowledged.promptsListChanged = true;
    if (active.filter.resourcesListChanged && capabilities.resources?.listChanged)
      acknowledged.resourcesListChanged = true;
    if (uris.length > 0) acknowledged.resourceSubscriptions = [...uris];
    active.acknowledged = acknowledged;
  },

  async close(active: ActiveSubscription, host: WireHost): Promise<void> {
    const stillWanted = host.stillWanted();
    for (const uri of active.filter.resourceSubscriptions ?? []) {
      if (!stillWanted.has(uri)) await host.send(Method.ResourcesUnsubscribe, { uri }, {}).catch(() => {});
    }
  },
};
