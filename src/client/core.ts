/**
 * The client's engine: builds the link for a target, negotiates the era, runs every request through the era's
 * codec, and owns failure behaviour (unwrapped errors, session re-initialization, restart with re-subscribe,
 * one retry of idempotent reads).
 */
import type { Result } from '../jsonrpc/connection.js';
import { LocalError } from '../jsonrpc/errors.js';
import { INPUT_REQUIRED_METHODS } from '../mcp/methods.js';
import { LATEST_HANDSHAKE_VERSION, LATEST_PROTOCOL_VERSION } from '../mcp/revisions.js';
import type { Implementation, LoggingMessageParams } from '../mcp/types.js';
import { HttpStatusError } from '../transports/http/client/errors.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { delay } from '../util/abort.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { ResultCache } from './cache.js';
import { type ServerState, initialize, negotiate } from './era.js';
import { ClientEventEmitter } from './events.js';
import { httpStatusOf, isLinkFailure, unwrapError } from './failures.js';
import { answerInputRequest, capabilitiesFromHandlers } from './input.js';
import { type Link, createLink, createTransport, isStdioTarget, targetKey } from './link.js';
import { RequestDefaults, completeOnly } from './request-options.js';
import { StatelessCodec } from './stateless.js';
import { SubscriptionManager } from './subscriptions.js';
import { ToolHeaderRegistry } from './tool-headers.js';
import type { CallOptions, ClientOptions, ConnectTarget } from './types.js';

const DEFAULT_CLIENT_INFO: Implementation = { name: 'agentforge', version: PACKAGE_VERSION };
/** Which HTTP transport answered an endpoint last time ('sse' skips the Streamable HTTP attempt). */
const httpKindCache = new Map<string, 'streamable-http' | 'sse'>();

export class ClientCore {
  readonly events = new ClientEventEmitter();
  readonly toolHeaders = new ToolHeaderRegistry();
  readonly cache: ResultCache | undefined;
  readonly subscriptions: SubscriptionManager;
  readonly options: ClientOptions;
  readonly logger: Logger;
  readonly key: string;
  readonly #target: ConnectTarget;
  readonly #clientInfo: Implementation;
  #link: Link | undefined;
  #state: ServerState | undefined;
  #codec: StatelessCodec;
  #restarting: Promise<void> | undefined;
  #renewing: Promise<void> | undefined;
  #dead: Error | undefined;
  #closed = false;
  readonly #defaults: RequestDefaults;

  constructor(target: ConnectTarget, options: ClientOptions) {
    this.#target = target;
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.key = targetKey(target);
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.cache = options.cache === false ? undefined : (options.cache ?? new ResultCache());
    this.#codec = this.#newCodec();
    this.#defaults = new RequestDefaults(options);
    this.subscriptions = new SubscriptionManager({
      link: () => this.link,
      codec: () => this.#codec,
      state: () => this.state,
      ackTimeoutMs: options.initializeTimeoutMs ?? 30_000,
    });
  }

  get link(): Link {
    if (!this.#link) throw new LocalError('not_connected', 'client is not connected');
    return this.#link;
  }

  get state(): ServerState {
    if (!this.#state) throw new LocalError('not_connected', 'client is not connected');
    return this.#state;
  }

  #newCodec(): StatelessCodec {
    const capabilities =
      this.options.capabilities ?? capabilitiesFromHandlers(this.options.handlers, LATEST_PROTOCOL_VERSION);
    return new StatelessCodec(LATEST_PROTOCOL_VERSION, this.#clientInfo, capabilities, this.options.logLevel);
  }

  /** Connects (or reconnects after a restart): transport, era, and the handshake-era log level. */
  async establish(): Promise<void> {
    const target = this.#target;
    const http = typeof target === 'string' || target instanceof URL;
    const preferred = this.options.transport ?? 'auto';
    let kind: 'streamable-http' | 'sse' | undefined = http
      ? preferred === 'auto'
        ? httpKindCache.get(this.key)
        : preferred
      : undefined;
    kind ??= http ? 'streamable-http' : undefined;
    try {
      await this.#establishWith(kind);
    } catch (error) {
      const status = httpStatusOf(error)?.status;
      const fallback =
        http &&
        kind === 'streamable-http' &&
        preferred === 'auto' &&
        (status === 400 || status === 404 || status === 405);
      // What this endpoint spoke last time is no longer known: the next connect detects again.
      httpKindCache.delete(this.key);
      if (!fallback) throw unwrapError(error);
      // 2026-07-28 streamable-http: Backward Compatibility, HTTP+SSE (2024-11-05).
      this.logger.debug(`Streamable HTTP POST failed with ${status}; trying the HTTP+SSE transport`);
      await this.#establishWith('sse').catch((sseError: unknown) => {
        // Not an HTTP+SSE server either: the Streamable HTTP failure is the one that explains it.
        this.logger.debug('HTTP+SSE fallback failed', sseError);
        throw unwrapError(error);
      });
    }
    if (http && kind) httpKindCache.set(this.key, this.#link?.kind === 'sse' ? 'sse' : 'streamable-http');
    const state = this.state;
    if (state.era === 'handshake' && this.options.logLevel && state.capabilities.logging) {
      await this.link.connection
        .request('logging/setLevel', { level: this.options.logLevel })
        .catch((error: unknown) => {
          this.logger.warn('logging/setLevel failed', error);
        });
    }
  }

  async #establishWith(kind: 'streamable-http' | 'sse' | undefined): Promise<void> {
    const created = createTransport(this.#target, kind, this.options, this.logger, this.toolHeaders);
    const link = createLink(created.transport, created.kind, this.key, this.options);
    this.#wire(link);
    const signal = this.options.signal;
    const onAbort = () => void link.connection.close().catch(() => {});
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) throw signal.reason;
      await link.connection.start();
      this.#codec = this.#newCodec();
      const handshakeCapabilities = (version: string) =>
        this.options.capabilities ?? capabilitiesFromHandlers(this.options.handlers, version);
      const negotiateOptions = {
        pinnedVersion: this.options.protocolVersion,
        probeTimeoutMs: this.options.probeTimeoutMs ?? 5_000,
        initializeTimeoutMs: this.options.initializeTimeoutMs ?? 30_000,
        clientInfo: this.#clientInfo,
        handshakeCapabilities,
        logger: this.logger,
      };
      const state =
        created.kind === 'sse'
          ? await initialize(link, this.options.protocolVersion ?? LATEST_HANDSHAKE_VERSION, negotiateOptions)
          : await negotiate(link, this.#codec, negotiateOptions);
      // Only an established link is ours: one that dies while negotiating fails this attempt instead.
      this.#link = link;
      this.#state = state;
      this.#dead = undefined;
    } catch (error) {
      await link.connection.close().catch(() => {});
      throw signal?.aborted ? signal.reason : error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (link.connection.closed)
      throw new LocalError('connection_closed', 'the server went away right after connecting');
  }

  #wire(link: Link): void {
    const { connection } = link;
    for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list']) {
      connection.setRequestHandler(method, (params, context) =>
        answerInputRequest(this.options.handlers, method, params, { signal: context.signal }),
      );
    }
    connection.setRequestHandler('ping', () => ({}));
    const notifications = [
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/message',
      'notifications/subscriptions/acknowledged',
      'notifications/elicitation/complete',
    ];
    for (const method of notifications) {
      connection.setNotificationHandler(method, (params) => this.#onNotification(method, params));
    }
    connection.onClose((error) => this.#onLinkClosed(link, error));
  }

  #onNotification(method: string, params: Record<string, unknown> | undefined): void {
    const scope = this.key;
    switch (method) {
      case 'notifications/tools/list_changed':
        this.cache?.invalidate(scope, 'tools/list');
        this.events.emit('toolsListChanged', undefined);
        break;
      case 'notifications/prompts/list_changed':
        this.cache?.invalidate(scope, 'prompts/list');
        this.events.emit('promptsListChanged', undefined);
        break;
      case 'notifications/resources/list_changed':
        this.cache?.invalidate(scope, 'resources/list');
        this.cache?.invalidate(scope, 'resources/templates/list');
        this.events.emit('resourcesListChanged', undefined);
        break;
      case 'notifications/resources/updated': {
        const uri = params?.uri;
        if (typeof uri === 'string') {
          this.cache?.invalidate(scope, 'resources/read', { uri });
          this.events.emit('resourceUpdated', { uri });
        }
        break;
      }
      case 'notifications/message':
        this.events.emit('log', (params ?? {}) as LoggingMessageParams);
        return;
      case 'notifications/elicitation/complete':
        if (typeof params?.elicitationId === 'string')
          this.events.emit('elicitationComplete', { elicitationId: params.elicitationId });
        return;
    }
    this.subscriptions.route({ method, params });
  }

  #onLinkClosed(link: Link, error: LocalError): void {
    // A restart in progress checks its own link before it declares success.
    if (link !== this.#link || this.#closed || this.#restarting) return;
    const reason = unwrapError(error) as Error;
    const restartable =
      this.options.restart !== undefined &&
      (isStdioTarget(this.#target) || typeof this.#target === 'string' || this.#target instanceof URL);
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
   * One logical request: era codec, MRTR, result-type check, and the failure rules. `idempotent` requests
   * (list/read/get) are retried once after a link failure; tools/call only when the caller opted in.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions = {},
    idempotent = false,
  ): Promise<Result> {
    const link = this.#link;
    // The common case, a live link: no extra await (each is a promise and a microtask per call).
    if (link === undefined || this.#closed || this.#restarting || this.#dead) {
      return this.ready().then((ready) => this.#attempt(ready, method, params, options, idempotent));
    }
    return this.#attempt(link, method, params, options, idempotent);
  }

  #attempt(
    link: Link,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
    idempotent: boolean,
  ): Promise<Result> {
    let sent: Promise<Result>;
    try {
      sent = this.#send(link, method, params, options);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.catch((caught: unknown) => this.#recover(caught, link, method, params, options, idempotent));
  }

  async #recover(
    caught: unknown,
    link: Link,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
    idempotent: boolean,
  ): Promise<Result> {
    const error = unwrapError(caught);
    const retryable = (idempotent || options.retry === true) && !options.signal?.aborted;
    if (error instanceof HttpStatusError && error.sessionExpired) {
      await this.#renewSession(link, error.expiredSessionId);
      if (retryable) return this.#send(await this.ready(), method, params, options);
      throw new LocalError(
        'connection_closed',
        `the server ended the session during ${method}; a new session was started`,
        { cause: error },
      );
    }
    if (retryable && isLinkFailure(error) && !this.#closed) {
      const next = await this.ready().catch(() => undefined);
      if (next && (next !== link || !link.connection.closed))
        return this.#send(next, method, params, options).catch((e: unknown) => {
          throw unwrapError(e);
        });
    }
    throw error;
  }

  #send(
    link: Link,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<Result> {
    const requestOptions = this.#defaults.for(options);
    if (this.state.era === 'stateless') {
      if (INPUT_REQUIRED_METHODS.has(method)) {
        const loop = this.#defaults.inputLoop(requestOptions);
        return this.#codec.requestWithInput(link.connection, method, params ?? {}, requestOptions, loop);
      }
      return this.#codec.request(link.connection, method, params, requestOptions).then(completeOnly(method));
    }
    const traceparent = requestOptions.traceparent;
    const withTrace = traceparent
      ? { ...params, _meta: { ...(params?._meta as object | undefined), traceparent } }
      : params;
    return link.connection.request(method, withTrace, requestOptions).then(completeOnly(method));
  }

  /**
   * 2025-11-25 Session Management: a 404 on our session means a new initialize without the old id. Parallel
   * calls that hit the same expired session share one renewal; a 404 for a session already replaced is done.
   */
  #renewSession(link: Link, expired: string | undefined): Promise<void> {
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
    const state = this.state;
    this.#state = await initialize(link, state.protocolVersion, {
      pinnedVersion: state.protocolVersion,
      probeTimeoutMs: 0,
      initializeTimeoutMs: this.options.initializeTimeoutMs ?? 30_000,
      clientInfo: this.#clientInfo,
      handshakeCapabilities: (version) =>
        this.options.capabilities ?? capabilitiesFromHandlers(this.options.handlers, version),
      logger: this.logger,
    });
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
