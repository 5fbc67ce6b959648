import { LocalError } from '../../../jsonrpc/errors.js';
import type { JSONRPCMessage, JSONRPCResponse, RequestId } from '../../../jsonrpc/messages.js';
import { stringifyMessage } from '../../../jsonrpc/serialise.js';
import type { MessageExtra, SendOptions, Transport } from '../../../jsonrpc/transport.js';
import { Header } from '../../../mcp/meta.js';
import { AnswerRelay } from './answer-relay.js';
import type { HttpExchange } from './exchange.js';
import type { ResolvedOptions } from './options.js';
import type { SessionRecord } from './session-store.js';
import { type FirstWriteHook, SessionStream, type StreamSettings, parseEventId } from './session-stream.js';
import { sseMessage } from './wire.js';

/** Ids of the requests a shared session replays to itself (`replay`); their answers go nowhere. */
const REPLAY_ID = 'agentforge/replay-';
/** What send returns once a message is written (or queued on its stream): one settled promise for all. */
const SENT: Promise<void> = Promise.resolve();
/** Finished streams kept for replay to a client that lost the connection before the end. */
const MAX_FINISHED_STREAMS = 32;

function isResponse(message: JSONRPCMessage): message is JSONRPCResponse {
  return 'result' in message || 'error' in message;
}

/**
 * The Transport of one Streamable HTTP session (2025-03-26..2025-11-25). A response, and any notification or
 * request sent with `relatedRequestId`, goes onto the stream of the POST that carried that request; everything
 * else onto the session's GET stream (queued while none is open).
 */
export class StreamableSessionTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** The HTTP layer's own close hook (the connection owns `onclose`): forgets the session. */
  onended?: () => void;
  readonly sessionId: string;
  /** Negotiated on initialize; decides priming events and batches. */
  protocolVersion: string | undefined;
  /** In-flight requests (and open streams) keep an idle session from expiring. */
  lastActivity = Date.now();
  readonly #options: ResolvedOptions;
  readonly #byRequest = new Map<RequestId, SessionStream>();
  readonly #byKey = new Map<string, SessionStream>();
  #standaloneStream: SessionStream | undefined;
  #nextStream = 0;
  #closed = false;
  #initializeId: RequestId | undefined;
  readonly #standaloneKey: string;
  readonly #persist: StreamSettings['persist'];
  #sharedSettings: { readonly version: string; readonly settings: StreamSettings } | undefined;
  readonly #replaying = new Set<RequestId>();
  #replays = 0;
  #extraForReplay: MessageExtra | undefined;
  /** What a request's `extra.closeStandaloneSSEStream` does (one function for the session, not one a request). */
  readonly #closeStandalone = (): void => this.#standaloneStream?.closeConnection();
  /** With shared sessions and a relay: the client's answers to this copy's requests, from any instance. */
  readonly #answers: AnswerRelay | undefined;

  constructor(sessionId: string, options: ResolvedOptions) {
    this.sessionId = sessionId;
    this.#options = options;
    this.#answers =
      options.sessionRelay && options.streamTag !== ''
        ? new AnswerRelay(
            options.sessionRelay,
            sessionId,
            options.streamTag,
            options.logger,
            (message, extra) => this.onmessage?.(message, extra),
          )
        : undefined;
    this.#standaloneKey = `g${options.streamTag}`;
    const store = options.eventStore;
    const limits = { maxEvents: options.maxEventsPerStream, ttlMs: options.sessionIdleTimeoutMs };
    // A failed append is logged, not fatal: the client still gets the event live, only a resumption elsewhere
    // would miss it.
    this.#persist =
      store &&
      ((key, seq, message) => {
        store
          .append(sessionId, key, { seq, message }, limits)
          .catch((error: unknown) => options.logger.warn(`session ${sessionId}: event not stored`, error));
      });
  }

  /**
   * Continues here a session initialized on another instance: the session replays its own initialize with
   * what was negotiated there (the same revision, the client's capabilities and info), so it serves the
   * client's next request as the first instance would. The answer to that initialize is dropped.
   */
  restore(record: SessionRecord, exchange: HttpExchange): void {
    this.protocolVersion = record.protocolVersion;
    const extra = exchange.extra(this.sessionId);
    this.#extraForReplay = extra;
    const params: Record<string, unknown> = {
      protocolVersion: record.protocolVersion,
      capabilities: record.clientCapabilities,
    };
    if (record.clientInfo) params.clientInfo = record.clientInfo;
    this.replay('initialize', params);
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' }, extra);
    for (const uri of record.resourceSubscriptions ?? []) this.replay('resources/subscribe', { uri });
    if (record.logLevel !== undefined) this.replay('logging/setLevel', { level: record.logLevel });
  }

  /**
   * Delivers to the session a request the client made through another instance (resources/subscribe,
   * logging/setLevel), so this copy keeps the same state; the answer was the other instance's to send.
   */
  replay(method: string, params: Record<string, unknown>): void {
    const id = `${REPLAY_ID}${++this.#replays}`;
    this.#replaying.add(id);
    this.onmessage?.({ jsonrpc: '2.0', id, method, params }, this.#extraForReplay);
  }

  /** Created on first use, after initialize has fixed the protocol version (which decides priming). */
  get #standalone(): SessionStream {
    if (!this.#standaloneStream) {
      const key = this.#standaloneKey;
      this.#standaloneStream = new SessionStream(key, this.#settings(), undefined, [], false);
      this.#byKey.set(key, this.#standaloneStream);
    }
    return this.#standaloneStream;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get busy(): boolean {
    return this.#byRequest.size > 0 || (this.#standaloneStream?.connected ?? false);
  }

  async start(): Promise<void> {}

  /** Marks the request whose result carries the negotiated protocol version. */
  expectInitialize(id: RequestId): void {
    this.#initializeId = id;
  }

  /** True when a request with this id is still being answered (its id cannot be reused yet). */
  hasRequest(id: RequestId): boolean {
    return this.#byRequest.has(id);
  }

  /**
   * Opens the stream that answers a POST carrying requests, then hands the messages to the connection at once
   * (a handler that answers synchronously has answered the POST when this returns). Each request's
   * `extra.closeSSEStream` ends that POST's connection for polling (SEP-1699). `beforeFirstWrite` is the
   * stream's hook, set before anything can be written.
   */
  acceptRequests(
    exchange: HttpExchange,
    messages: readonly unknown[],
    ids: readonly RequestId[],
    batch: boolean,
    beforeFirstWrite?: FirstWriteHook,
  ): void {
    this.lastActivity = Date.now();
    const key = `s${this.#options.streamTag}${++this.#nextStream}`;
    const stream = new SessionStream(key, this.#settings(), exchange, ids, batch);
    stream.beforeFirstWrite = beforeFirstWrite;
    this.#byKey.set(key, stream);
    for (const id of ids) this.#byRequest.set(id, stream);
    const extra = this.#extra(exchange, stream);
    this.#extraForReplay ??= exchange.extra(this.sessionId);
    for (const message of messages) this.onmessage?.(message, extra);
  }

  /** Whose session this is: answers relayed from other instances are taken from this principal only. */
  ownedBy(principal: string | undefined): void {
    if (this.#answers) this.#answers.principal = principal;
  }

  /** Notifications and responses from the client: no stream, the POST is answered 202 by the caller. */
  acceptOthers(exchange: HttpExchange, messages: readonly unknown[]): void {
    this.lastActivity = Date.now();
    const extra = exchange.extra(this.sessionId);
    for (const message of messages) {
      // An answer to a request another instance's copy sent goes there.
      const local =
        this.#answers && isResponse(message as JSONRPCMessage)
          ? this.#answers.incoming(message as JSONRPCResponse, exchange.principal)
          : message;
      if (local !== undefined) this.onmessage?.(local, extra);
    }
  }

  /** GET: resume a stream named by Last-Event-ID, or open the standalone stream. Returns an HTTP status on refusal. */
  openGet(exchange: HttpExchange): number | undefined | Promise<number | undefined> {
    this.lastActivity = Date.now();
    const lastEventId = exchange.header(Header.LastEventId);
    const parsed = lastEventId === undefined ? undefined : parseEventId(lastEventId);
    const stream = parsed === undefined ? undefined : this.#byKey.get(parsed.key);
    if (parsed && !stream && this.#options.eventStore) return this.#resumeElsewhere(exchange, parsed);
    if (parsed && stream) {
      if (stream === this.#standalone && stream.connected) return 409;
      stream.resume(exchange, parsed.seq);
      this.#forgetIfDone(stream);
      return undefined;
    }
    // 2025-11-25 basic/transports: one GET stream per session.
    if (this.#standalone.connected) return 409;
    this.#standalone.open(exchange);
    return undefined;
  }

  /**
   * Last-Event-ID names a stream of another instance: its stored events after that id are replayed. The
   * session's GET stream then goes on live from here; a POST's stream is closed after the replay with a
   * `retry` (SEP-1699 polling), the client coming back for what its instance appends meanwhile.
   */
  async #resumeElsewhere(
    exchange: HttpExchange,
    at: { key: string; seq: number },
  ): Promise<number | undefined> {
    const store = this.#options.eventStore;
    if (!store) return undefined;
    const standalone = at.key.startsWith('g');
    if (standalone && this.#standalone.connected) return 409;
    const events = await store.replay(this.sessionId, at.key, at.seq);
    if (exchange.responded || this.#closed) return undefined;
    const texts = events.map((event) => sseMessage(event.message, `${at.key}_${event.seq}`));
    if (standalone) {
      if (this.#standalone.connected) return 409;
      this.#standalone.open(exchange, texts);
      return undefined;
    }
    const sink = exchange.openSse({ [Header.SessionId]: this.sessionId });
    for (const text of texts) sink.write(text);
    sink.write(`retry: ${this.#options.retryMs}\n\n`);
    sink.end();
    return undefined;
  }

  /** Not async: a response is written at once and costs no promise of its own (one settled promise is shared). */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new LocalError('connection_closed', 'session is closed'));
    this.lastActivity = Date.now();
    if (isResponse(message)) {
      this.#sendResponse(message);
      return SENT;
    }
    if (this.#answers && 'method' in message && 'id' in message) return this.#sendRelayable(message, options);
    this.#sendOther(message, options);
    return SENT;
  }

  #sendResponse(message: JSONRPCResponse): void {
    const id = message.id;
    // The answer to a replayed request (unless the client itself chose that id for a request of its own).
    if (id !== undefined && id !== null && !this.#byRequest.has(id) && this.#replaying.delete(id)) return;
    const stream = id === undefined || id === null ? undefined : this.#byRequest.get(id);
    if (!stream || id === undefined || id === null) {
      this.#options.logger.debug(`dropped a response for unknown request ${String(id)}`);
      return;
    }
    this.#byRequest.delete(id);
    if (id === this.#initializeId && 'result' in message) {
      const version = message.result.protocolVersion;
      if (typeof version === 'string') this.protocolVersion = version;
      this.#initializeId = undefined;
    }
    stream.sendResponse(message, id);
    this.#forgetIfDone(stream);
  }

  /** A request of this copy of a shared session: its id names this instance (AnswerRelay). */
  async #sendRelayable(message: JSONRPCMessage & { id: RequestId }, options?: SendOptions): Promise<void> {
    const id = await (this.#answers as AnswerRelay).outgoing(message.id);
    this.#sendOther({ ...message, id }, options);
  }

  #sendOther(message: JSONRPCMessage, options: SendOptions | undefined): void {
    const related = options?.relatedRequestId;
    const stream = related === undefined ? undefined : this.#byRequest.get(related);
    (stream ?? this.#standalone).sendMessage(stringifyMessage(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#answers?.close();
    for (const stream of this.#byKey.values()) stream.close();
    this.#byKey.clear();
    this.#byRequest.clear();
    this.onended?.();
    this.onclose?.();
  }

  /**
   * The settings of the session's streams: one frozen object once initialize has fixed the version (a POST
   * costs no settings and header objects of its own); before that, a fresh one, as the initialize hook may
   * drop the session header from the stream that answers initialize.
   */
  #settings(): StreamSettings {
    const version = this.protocolVersion;
    const shared = this.#sharedSettings;
    if (shared !== undefined && shared.version === version) return shared.settings;
    const headers = { [Header.SessionId]: this.sessionId };
    const settings: StreamSettings = {
      maxEvents: this.#options.maxEventsPerStream,
      retryMs: this.#options.retryMs,
      keepAliveMs: this.#options.keepAliveMs,
      priming: version !== undefined && version >= '2025-11-25',
      headers,
      persist: this.#persist,
      closeStandalone: this.#closeStandalone,
    };
    if (version !== undefined) {
      Object.freeze(headers);
      this.#sharedSettings = { version, settings: Object.freeze(settings) };
    }
    return settings;
  }

  #extra(exchange: HttpExchange, stream: SessionStream): MessageExtra {
    return exchange.extra(this.sessionId, stream);
  }

  /** Drops a finished stream once nothing is left to replay; keeps a bounded few that still owe events. */
  #forgetIfDone(stream: SessionStream): void {
    if (!stream.complete || stream === this.#standaloneStream) return;
    if (!stream.hasUndelivered) {
      this.#byKey.delete(stream.key);
      return;
    }
    let finished = 0;
    for (const [key, other] of this.#byKey) {
      if (other.complete && other !== stream && ++finished >= MAX_FINISHED_STREAMS) this.#byKey.delete(key);
    }
  }
}
