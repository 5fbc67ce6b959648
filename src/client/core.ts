/**
 * The client's engine: a link (transport + connection) to the server, the era codec chosen at negotiation, and
 * one composed request pipeline (src/client/pipeline.ts) every request goes through. Connecting, restarting a
 * dead server and renewing an expired session live here; what differs between eras lives in the codec.
 */
import { oauthMiddleware } from '../auth/client/middleware.js';
import type { Result } from '../jsonrpc/connection.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { LocalError } from '../mcp/local-errors.js';
import { LATEST_PROTOCOL_VERSION } from '../mcp/revisions.js';
import type { Implementation } from '../mcp/types.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { delay } from '../util/abort.js';
import { type Next, compose } from '../util/compose.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { ResultCache } from './cache.js';
import { type NegotiateOptions, initialize } from './era.js';
import { copyTrace } from './trace.js';
import { ClientEventEmitter } from './events.js';
import { rethrowUnwrapped, unwrapError } from './failures.js';
import { HandshakeCodec } from './handshake.js';
import { capabilitiesFromHandlers } from './input.js';
import { type FinishedSend, InputLoop } from './input-loop.js';
import { isStdioTarget, targetKey } from './link.js';
import { LIST_CHANGE_EVENTS, ListChangeWatcher } from './list-changes.js';
import { type NotificationHost, wireLink } from './notifications.js';
import { retryAfterLinkFailure, sessionRenewal } from './pipeline.js';
import { RequestDefaults, ResultChecks } from './request-options.js';
import { type EraCache, defaultEraCache } from './server-caches.js';
import { connectLink } from './establish.js';
import { StatelessCodec } from './stateless.js';
import { SubscriptionManager } from './subscriptions.js';
import type { ClientOptions, ConnectTarget } from './types.js';
import type {
  CallOptions,
  ClientEraCodec,
  ClientRequestContext,
  Link,
  PipelineHost,
  ServerState,
  WireRequestOptions,
} from './contracts.js';

const DEFAULT_CLIENT_INFO: Implementation = { name: 'agentforge', version: PACKAGE_VERSION };
const SENT: Result = Object.freeze({}) as Result;
/** The options of a request that passes none, shared (held by every request in flight otherwise). */
const NO_OPTIONS: CallOptions = Object.freeze({});

export class ClientCore implements PipelineHost {
  readonly events = new ClientEventEmitter((name) => {
    if (LIST_CHANGE_EVENTS.has(name)) this.listChanges.update();
  });
  readonly cache: ResultCache | undefined;
  readonly subscriptions: SubscriptionManager;
  readonly listChanges: ListChangeWatcher;
  readonly options: ClientOptions;
  readonly logger: Logger;
  readonly key: string;
  readonly target: ConnectTarget;
  readonly #clientInfo: Implementation;
  readonly #eraCache: EraCache;
  #link: Link | undefined;
  #state: ServerState | undefined;
  #codec: ClientEraCodec | undefined;
  #restarting: Promise<void> | undefined;
  #renewing: Promise<void> | undefined;
  #dead: Error | undefined;
  #closed = false;
  readonly #defaults: RequestDefaults;
  readonly #request: Next<ClientRequestContext, Result>;
  readonly #connectRequest: Next<ClientRequestContext, Result>;
  readonly #notificationHost: NotificationHost;

  constructor(target: ConnectTarget, options: ClientOptions) {
    this.target = target;
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.key = targetKey(target);
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.#eraCache = options.eraCache ?? defaultEraCache;
    this.cache = options.cache === false ? undefined : (options.cache ?? new ResultCache());
    this.#defaults = new RequestDefaults(options);
    this.subscriptions = new SubscriptionManager({
      link: () => this.link,
      codec: () => this.codec,
      state: () => this.state,
      ackTimeoutMs: options.initializeTimeoutMs ?? 30_000,
      send: (method, params, requestOptions, sent) =>
        this.#connectRequest({
          kind: 'request',
          method,
          params,
          options: requestOptions,
          link: this.link,
          codec: this.codec,
          idempotent: false,
          connecting: false,
          sent,
        } as DirectRequestContext),
    });
    this.listChanges = new ListChangeWatcher({
      events: this.events,
      subscriptions: this.subscriptions,
      logger: this.logger,
      ready: () => this.ready().then(() => this.state),
    });
    this.#notificationHost = {
      key: this.key,
      cache: this.cache,
      events: this.events,
      subscriptions: this.subscriptions,
      handlers: options.handlers,
    };
    // OAuth (agentforge/auth) is one more layer, inside the user's: a 401 or 403 insufficient_scope is
    // authorized and the request sent again, during connect as well as after.
    const user = [...(options.middleware ?? []), ...(options.oauth ? [oauthMiddleware(options.oauth)] : [])];
    const send = (context: ClientRequestContext) =>
      context.codec.send(
        context.link.connection,
        context.method,
        context.params,
        this.#defaults.for(context.options),
      );
    const checks = new ResultChecks(() => this.serverName);
    const inner = compose([...user, sessionRenewal(this), retryAfterLinkFailure(this)], send, {
      repeatableNext: true,
    });
    const finishedSend: FinishedSend = (context, onresult) =>
      context.codec.send(
        context.link.connection,
        context.method,
        context.params,
        this.#defaults.for(context.options, onresult),
        context.options,
      );
    const loop = new InputLoop(this.#defaults, checks, inner, user.length === 0 ? finishedSend : undefined);
    this.#request = (context) => {
      try {
        return loop.request(context);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    this.#connectRequest = compose(user, sendDirect, { repeatableNext: true });
  }

  get link(): Link {
    if (!this.#link) throw new LocalError('not_connected', 'client is not connected');
    return this.#link;
  }

  get state(): ServerState {
    if (!this.#state) throw new LocalError('not_connected', 'client is not connected');
    return this.#state;
  }

  get codec(): ClientEraCodec {
    if (!this.#codec) throw new LocalError('not_connected', 'client is not connected');
    return this.#codec;
  }

  /** How errors name the server: its declared name once known, else its command line or endpoint. */
  get serverName(): string {
    const name = this.#state?.serverInfo?.name;
    return name === undefined ? this.key : `server ${JSON.stringify(name)} (${this.key})`;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The options negotiation needs; its requests run through the user's middleware (`connecting: true`). */
  #negotiateOptions(): NegotiateOptions {
    const { options } = this;
    return {
      pinnedVersion: options.protocolVersion,
      probeTimeoutMs: options.probeTimeoutMs ?? 5_000,
      initializeTimeoutMs: options.initializeTimeoutMs ?? 30_000,
      clientInfo: this.#clientInfo,
      handshakeCapabilities: (version) =>
        options.capabilities ?? capabilitiesFromHandlers(options.handlers, version),
      logger: this.logger,
      eraCache: this.#eraCache,
      send: (link, codec, kind, method, params, timeoutMs) =>
        this.#connectRequest({
          kind,
          method,
          params,
          options: timeoutMs === undefined ? {} : { timeoutMs },
          link,
          codec,
          idempotent: false,
          connecting: true,
        }),
      handshakeCodec: (version) => new HandshakeCodec(version, options.logLevel, this.logger),
    };
  }

  #probeCodec(): StatelessCodec {
    const capabilities =
      this.options.capabilities ?? capabilitiesFromHandlers(this.options.handlers, LATEST_PROTOCOL_VERSION);
    return new StatelessCodec(LATEST_PROTOCOL_VERSION, this.#clientInfo, capabilities, this.options.logLevel);
  }

  /** Connects (or reconnects after a restart): transport, era, and what the era does right after. */
  async establish(): Promise<void> {
    const wire = (link: Link) => {
      wireLink(link, this.#notificationHost);
      link.connection.onClose((error) => this.#onLinkClosed(link, error));
    };
    const { link, negotiated } = await connectLink(this, this.#negotiateOptions(), this.#probeCodec(), wire);
    this.#link = link;
    this.#state = negotiated.state;
    this.#codec = negotiated.codec;
    this.#dead = undefined;
    const send = this.#negotiateOptions().send;
    await negotiated.codec.afterConnect(negotiated.state, (method, params) =>
      send(link, negotiated.codec, 'request', method, params, undefined),
    );
  }

  #onLinkClosed(link: Link, error: LocalError): void {
    // A restart in progress checks its own link before it declares success.
    if (link !== this.#link || this.#closed || this.#restarting) return;
    const reason = unwrapError(error) as Error;
    const target = this.target;
    const restartable =
      this.options.restart !== undefined &&
      (isStdioTarget(target) || typeof target === 'string' || target instanceof URL);
    if (!restartable) {
      this.#die(reason);
      return;
    }
    this.#restarting = this.#restart(reason).finally(() => {
      this.#restarting = undefined;
    });
  }

  #die(reason: Error): void {
    this.#dead = reason;
    this.subscriptions.endAll();
    this.events.emit('close', { error: reason });
  }

  async #restart(reason: Error): Promise<void> {
    const policy = this.options.restart ?? {};
    const attempts = policy.maxAttempts ?? 3;
    let backoff = policy.backoffMs ?? 500;
    let last: unknown = reason;
    for (let attempt = 1; attempt <= attempts && !this.#closed; attempt++) {
      await delay(backoff);
      backoff = Math.min(backoff * 2, policy.maxBackoffMs ?? 10_000);
      try {
        await this.establish();
        this.cache?.clear();
        await this.subscriptions.reopenAll();
        if (this.link.connection.closed)
          throw new LocalError('connection_closed', 'the restarted server went away');
        this.events.emit('restart', { attempt });
        return;
      } catch (error) {
        last = error;
        this.logger.warn(`restart attempt ${attempt} failed`, error);
      }
    }
    if (!this.#closed) this.#die(last instanceof Error ? last : reason);
  }

  /** Waits out a restart in progress; throws when the client is closed or its server is gone. */
  async ready(): Promise<Link> {
    if (this.#closed) throw new LocalError('connection_closed', 'client is closed');
    if (this.#restarting) await this.#restarting;
    if (this.#dead) throw this.#dead;
    return this.link;
  }

  /**
   * One logical request through the pipeline. `idempotent` requests (list/read/get) are retried once after a
   * link failure; tools/call only when the caller opted in.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions = NO_OPTIONS,
    idempotent = false,
  ): Promise<Result> {
    const link = this.#link;
    // The common case, a live link: no extra await (each is a promise and a microtask per call).
    if (link === undefined || this.#closed || this.#restarting || this.#dead) {
      return this.ready().then((ready) =>
        this.#request(this.#context(ready, method, params, options, idempotent)),
      );
    }
    return this.#request(this.#context(link, method, params, options, idempotent));
  }

  #context(
    link: Link,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
    idempotent: boolean,
  ): ClientRequestContext {
    const codec = this.codec;
    return { kind: 'request', method, params, options, link, codec, idempotent, connecting: false };
  }

  /**
   * 2025-11-25 Session Management: a 404 on our session means a new initialize without the old id. Parallel
   * calls that hit the same expired session share one renewal; a 404 for a session already replaced is done.
   */
  renewSession(link: Link, expired: string | undefined): Promise<void> {
    if (link !== this.#link) return Promise.resolve();
    if (this.#renewing) return this.#renewing;
    const transport = link.transport instanceof StreamableHttpClientTransport ? link.transport : undefined;
    if (transport?.sessionId !== undefined && transport.sessionId !== expired) return Promise.resolve();
    this.#renewing = this.#initializeAgain(link, expired).finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #initializeAgain(link: Link, sessionId: string | undefined): Promise<void> {
    const version = this.state.protocolVersion;
    const negotiated = await initialize(link, version, {
      ...this.#negotiateOptions(),
      pinnedVersion: version,
      probeTimeoutMs: 0,
    });
    this.#state = negotiated.state;
    this.#codec = negotiated.codec;
    this.cache?.clear();
    await this.subscriptions.reopenAll();
    this.events.emit('sessionExpired', sessionId === undefined ? {} : { sessionId });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.subscriptions.endAll();
    const link = this.#link;
    if (link) await link.connection.close();
    this.events.emit('close', {});
  }
}

/** A request sent outside the pipeline's own layers (connecting, subscriptions); `sent` hears its id. */
interface DirectRequestContext extends ClientRequestContext {
  readonly sent?: ((id: RequestId | undefined) => void) | undefined;
}

/**
 * Connect-time and subscription requests: the codec's envelope with only the caller's signal, timeout and trace
 * (a tracing middleware's, so initialize joins the trace too; no client defaults); notifications resolve once
 * sent.
 */
function sendDirect(context: DirectRequestContext): Promise<Result> {
  const { connection } = context.link;
  if (context.kind === 'notification')
    return connection.notify(context.method, context.params).then(() => SENT, rethrowUnwrapped);
  const { timeoutMs, signal } = context.options;
  const options: WireRequestOptions = {};
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (signal !== undefined) options.signal = signal;
  copyTrace(context.options, options);
  // A subscription's listen may declare an extension's capability (a gateway's listen for its caller's tasks).
  const { clientCapabilities } = context.options as WireRequestOptions;
  if (clientCapabilities !== undefined) options.clientCapabilities = clientCapabilities;
  const answer = context.codec.send(connection, context.method, context.params, options);
  // Connection.request hands the message to the transport synchronously: the last id sent is this one's.
  context.sent?.(context.link.lastRequestId());
  return answer;
}
