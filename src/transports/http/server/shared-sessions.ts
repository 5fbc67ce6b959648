/**
 * Handshake-era sessions shared between instances through a SessionStore: recorded when initialize succeeds,
 * restored on an instance that does not hold them when a request names them, touched while in use, forgotten
 * on DELETE. A store that cannot be reached makes those requests fail with 503; nothing else depends on it.
 */
import { Method } from '../../../mcp/methods.js';
import type { JSONObject } from '../../../mcp/types.js';
import type { HttpExchange } from './exchange.js';
import type { ResolvedOptions } from './options.js';
import { MAX_RECORD_SUBSCRIPTIONS, type SessionRecord, type SessionStore } from './session-store.js';
import { StreamableSessionTransport } from './session-transport.js';
import type { SessionRegistry } from './sessions.js';
import type { HttpMcpServer, ServerSessionHandle } from './types.js';
import { isRecord } from '../../../util/record.js';

export interface SharedSessionEntry {
  readonly transport: StreamableSessionTransport;
  handle: ServerSessionHandle | undefined;
  readonly principal?: string | undefined;
}

/** The store could not be reached: the caller answers 503. */
export const STORE_UNAVAILABLE = Symbol('session store unavailable');

/** A session looked up: held (or restored) here, unknown, or the store could not be reached. */
export type Found = SharedSessionEntry | undefined | typeof STORE_UNAVAILABLE;

const TOUCH_INTERVAL_MS = 1000;

export class SharedSessions {
  readonly #store: SessionStore;
  readonly #options: ResolvedOptions;
  readonly #sessions: SessionRegistry;
  readonly #server: HttpMcpServer;
  /** The record of each session held here, as this instance last wrote or read it. */
  readonly #records = new Map<string, SessionRecord>();
  readonly #unwatch = new Map<string, () => void>();
  /** Restorations under way: concurrent requests for one session restore it once. */
  readonly #restoring = new Map<string, Promise<Found>>();
  /**
   * When each local session was last checked against the store and its expiry pushed back: at most once a
   * second (and a quarter of the idle timeout), so a DELETE through another instance ends this copy soon after.
   */
  readonly #touched = new Map<string, number>();

  constructor(
    store: SessionStore,
    options: ResolvedOptions,
    sessions: SessionRegistry,
    server: HttpMcpServer,
  ) {
    this.#store = store;
    this.#options = options;
    this.#sessions = sessions;
    this.#server = server;
  }

  /** Records a session whose initialize succeeded; resolves once another instance would find it. */
  record(sessionId: string, request: JSONObject | undefined, version: string, principal: string | undefined) {
    const params = (request ?? {}) as Record<string, unknown>;
    const caps = params.capabilities;
    const record: { -readonly [K in keyof SessionRecord]: SessionRecord[K] } = {
      protocolVersion: version,
      clientCapabilities: isRecord(caps) ? (caps as JSONObject) : {},
    };
    const info = params.clientInfo;
    if (isRecord(info)) record.clientInfo = info as JSONObject;
    if (principal !== undefined) record.principal = principal;
    this.#touched.set(sessionId, Date.now());
    this.#hold(sessionId, record);
    return this.#write(sessionId, record);
  }

  /**
   * What a session POST changes in the session's state (resources/subscribe and unsubscribe,
   * logging/setLevel): written to the store, so every instance holding the session applies it too.
   */
  observe(sessionId: string, messages: readonly object[]): void {
    const current = this.#records.get(sessionId);
    if (!current) return;
    const apply = (record: SessionRecord) => messages.reduce(changed, record);
    const next = apply(current);
    if (next === current) return;
    // This copy's view; the store applies the same change to what it holds (other instances' changes
    // included), and the watch brings those back here as a difference to replay.
    this.#records.set(sessionId, next);
    this.#store
      .update(sessionId, apply, this.#options.sessionIdleTimeoutMs)
      .catch((error: unknown) =>
        this.#options.logger.warn(`session ${sessionId}: change not recorded in the session store`, error),
      );
  }

  /** The session held here, or restored from the store; STORE_UNAVAILABLE when the store failed. */
  async find(sessionId: string, exchange: HttpExchange): Promise<Found> {
    const local = this.#sessions.get(sessionId, StreamableSessionTransport, exchange.principal);
    if (local) {
      this.#touch(sessionId);
      return local;
    }
    let restoring = this.#restoring.get(sessionId);
    if (!restoring) {
      restoring = this.#restore(sessionId, exchange).finally(() => this.#restoring.delete(sessionId));
      this.#restoring.set(sessionId, restoring);
    }
    const found = await restoring;
    // The session restored for another caller is not this caller's (Session Hijacking).
    if (found && found !== STORE_UNAVAILABLE && found.principal !== exchange.principal) return undefined;
    return found;
  }

  /** The local copy ended (idle, closed): the store keeps the session for the other instances. */
  forget(sessionId: string): void {
    this.#touched.delete(sessionId);
    this.#records.delete(sessionId);
    this.#unwatch.get(sessionId)?.();
    this.#unwatch.delete(sessionId);
  }

  async delete(sessionId: string): Promise<void> {
    this.#touched.delete(sessionId);
    await this.#store.delete(sessionId);
  }

  async #restore(sessionId: string, exchange: HttpExchange): Promise<Found> {
    let record: SessionRecord | undefined;
    try {
      record = await this.#store.get(sessionId);
    } catch (error) {
      this.#options.logger.warn(`session ${sessionId}: session store unavailable`, error);
      return STORE_UNAVAILABLE;
    }
    if (!record || record.principal !== exchange.principal) return undefined;
    if (!this.#sessions.reserve()) return undefined;
    const transport = new StreamableSessionTransport(sessionId, this.#options);
    let handle: ServerSessionHandle;
    try {
      handle = await this.#server.connect(transport);
    } catch (error) {
      this.#sessions.release();
      throw error;
    }
    transport.ownedBy(record.principal);
    transport.restore(record, exchange);
    this.#hold(sessionId, record);
    const entry: SharedSessionEntry = { transport, handle, principal: record.principal };
    transport.onended = () => {
      this.#sessions.delete(sessionId);
      this.forget(sessionId);
    };
    this.#sessions.add(sessionId, entry);
    this.#touched.set(sessionId, Date.now());
    return entry;
  }

  #write(sessionId: string, record: SessionRecord): Promise<void> {
    return this.#store.set(sessionId, record, this.#options.sessionIdleTimeoutMs).catch((error: unknown) => {
      this.#options.logger.warn(`session ${sessionId}: not recorded in the session store`, error);
    });
  }

  /** Keeps the record of a session held here and follows its changes made through other instances. */
  #hold(sessionId: string, record: SessionRecord): void {
    this.#records.set(sessionId, record);
    if (this.#unwatch.has(sessionId)) return;
    this.#unwatch.set(
      sessionId,
      this.#store.watch(sessionId, () => void this.#follow(sessionId)),
    );
  }

  /** Another instance changed the session: this copy replays the difference to itself. */
  async #follow(sessionId: string): Promise<void> {
    const known = this.#records.get(sessionId);
    if (!known) return;
    const next = await this.#store.get(sessionId).catch(() => undefined);
    const entry = this.#sessions.get(sessionId, StreamableSessionTransport, known.principal);
    if (!next || !entry || next.principal !== known.principal) return;
    const had = new Set(known.resourceSubscriptions ?? []);
    const has = new Set(next.resourceSubscriptions ?? []);
    for (const uri of has) if (!had.has(uri)) entry.transport.replay(Method.ResourcesSubscribe, { uri });
    for (const uri of had) if (!has.has(uri)) entry.transport.replay(Method.ResourcesUnsubscribe, { uri });
    if (next.logLevel !== undefined && next.logLevel !== known.logLevel)
      entry.transport.replay(Method.LoggingSetLevel, { level: next.logLevel });
    this.#records.set(sessionId, next);
  }

  #touch(sessionId: string): void {
    const now = Date.now();
    const idle = this.#options.sessionIdleTimeoutMs;
    if (now - (this.#touched.get(sessionId) ?? 0) < Math.min(idle / 4, TOUCH_INTERVAL_MS)) return;
    this.#touched.set(sessionId, now);
    this.#store.touch(sessionId, idle).then(
      (live) => {
        if (live) return;
        // Deleted through another instance (or expired there): this copy ends too, later requests get 404.
        this.#options.logger.debug(`session ${sessionId} is gone from the session store`);
        void this.#sessions.terminate(sessionId).catch(() => {});
      },
      (error: unknown) => this.#options.logger.warn(`session ${sessionId}: expiry not extended`, error),
    );
  }
}

/** The record after one client message: a subscription added or removed, a logging level set. */
function changed(record: SessionRecord, message: object): SessionRecord {
  if (!('id' in message) || !('method' in message)) return record;
  const { method, params } = message as { method: unknown; params?: Record<string, unknown> };
  const subscriptions = record.resourceSubscriptions ?? [];
  if (method === Method.LoggingSetLevel) {
    const level = params?.level;
    return typeof level === 'string' && level !== record.logLevel ? { ...record, logLevel: level } : record;
  }
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri.length > 8192) return record;
  if (method === Method.ResourcesSubscribe) {
    if (subscriptions.includes(uri) || subscriptions.length >= MAX_RECORD_SUBSCRIPTIONS) return record;
    return { ...record, resourceSubscriptions: [...subscriptions, uri] };
  }
  if (method === Method.ResourcesUnsubscribe && subscriptions.includes(uri))
    return { ...record, resourceSubscriptions: subscriptions.filter((known) => known !== uri) };
  return record;
}
