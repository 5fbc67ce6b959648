/**
 * Handshake-era sessions (2025-03-26..2025-11-25 basic/transports: Session Management) behind a balancer: the
 * instance that answered `initialize` records the session in a `SessionStore`, so a request naming it on any
 * other instance finds what was negotiated and continues the session there; every SSE event is appended to an
 * `EventStore`, so a client resuming with `Last-Event-ID` on another instance receives what it missed.
 */
import type { JSONObject } from '../../../mcp/types.js';
import { isRecord } from '../../../util/record.js';

/** What a session carries from its initialize: enough for another instance to serve its next request. */
export interface SessionRecord {
  /** The negotiated revision. */
  readonly protocolVersion: string;
  readonly clientCapabilities: JSONObject;
  readonly clientInfo?: JSONObject;
  /** Who opened it (2025-11-25 basic/security_best_practices, Session Hijacking): others find no session. */
  readonly principal?: string;
  /** resources/subscribe made in the session, wherever it landed (server/resources: Subscriptions). */
  readonly resourceSubscriptions?: readonly string[];
  /** The threshold of the session's last logging/setLevel. */
  readonly logLevel?: string;
}

/** Subscriptions a session record carries at most (the server's own per-session cap). */
export const MAX_RECORD_SUBSCRIPTIONS = 1000;

export interface SessionStore {
  /** The session, or undefined when unknown, deleted or expired. */
  get(sessionId: string): Promise<SessionRecord | undefined>;
  /**
   * Records a session (or its changed record); it expires after `ttlMs` without a `touch`. Every `watch`er of
   * the session, on any instance, is told.
   */
  set(sessionId: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /**
   * Applies `change` to the stored record atomically (a compare-and-set: a change made meanwhile through
   * another instance is read and `change` applied to it again, so concurrent changes never lose each other),
   * pushes the expiry `ttlMs` into the future and tells every `watch`er. Resolves to the record written, or
   * undefined when the session is gone. `change` returning its argument writes nothing.
   */
  update(
    sessionId: string,
    change: (record: SessionRecord) => SessionRecord,
    ttlMs: number,
  ): Promise<SessionRecord | undefined>;
  /** Calls `listener` after each `set` of the session, from any instance. Returns the unwatch. */
  watch(sessionId: string, listener: () => void): () => void;
  /**
   * Pushes the expiry `ttlMs` into the future (the session is in use); false when the session is gone
   * (deleted through another instance, or expired), so this instance drops its copy.
   */
  touch(sessionId: string, ttlMs: number): Promise<boolean>;
  delete(sessionId: string): Promise<void>;
}

/**
 * The 2024-11-05 HTTP+SSE transport across instances: its POSTs to `/messages?sessionId=` may reach an instance
 * that does not hold the session's SSE stream; that instance hands the message to the one that does.
 */
export interface SessionRelay {
  /** Hands `message` to the instance holding the session's stream: false when no instance holds it. */
  relay(sessionId: string, message: string): Promise<boolean>;
  /**
   * Receives what other instances relay to a session held here; resolves to the stop once relayed messages
   * arrive (the stream's endpoint is announced then).
   */
  receive(sessionId: string, handler: (message: string) => void): Promise<() => void>;
}

/** One stored SSE event of a session's stream: its sequence number within the stream and the message. */
export interface StoredSessionEvent {
  readonly seq: number;
  readonly message: string;
}

export interface EventStore {
  /**
   * Appends the event `seq` (increasing within the stream) to stream `streamKey` of a session, keeping the last
   * `maxEvents` of the stream and the whole stream no longer than `ttlMs` after its last event.
   */
  append(
    sessionId: string,
    streamKey: string,
    event: StoredSessionEvent,
    limits: { maxEvents: number; ttlMs: number },
  ): Promise<void>;
  /** The stream's events after `afterSeq`, oldest first (at most the kept ones). */
  replay(sessionId: string, streamKey: string, afterSeq: number): Promise<StoredSessionEvent[]>;
  /** Forgets every stream of a session (it was deleted). */
  deleteSession(sessionId: string): Promise<void>;
}

/** A SessionRecord from stored bytes: undefined for anything that is not one. */
export function readSessionRecord(value: unknown): SessionRecord | undefined {
  if (!isRecord(value)) return undefined;
  const raw = value;
  const object = (field: unknown): field is JSONObject => isRecord(field);
  if (typeof raw.protocolVersion !== 'string' || !object(raw.clientCapabilities)) return undefined;
  const record: { -readonly [K in keyof SessionRecord]: SessionRecord[K] } = {
    protocolVersion: raw.protocolVersion,
    clientCapabilities: raw.clientCapabilities,
  };
  if (object(raw.clientInfo)) record.clientInfo = raw.clientInfo;
  if (typeof raw.principal === 'string') record.principal = raw.principal;
  const uris = raw.resourceSubscriptions;
  if (
    Array.isArray(uris) &&
    uris.length <= MAX_RECORD_SUBSCRIPTIONS &&
    uris.every((uri) => typeof uri === 'string')
  )
    record.resourceSubscriptions = uris as string[];
  if (typeof raw.logLevel === 'string') record.logLevel = raw.logLevel;
  return record;
}

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/**
 * Sessions in this process's memory with their expiry: what one instance needs anyway, and what several
 * handlers in one process (tests, a worker pool over a shared map) can share.
 */
export class InMemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Expiring<SessionRecord>>();
  readonly #watchers = new Map<string, Set<() => void>>();

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const entry = this.#sessions.get(sessionId);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.value;
    this.#sessions.delete(sessionId);
    return undefined;
  }

  async set(sessionId: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.#sweep();
    this.#sessions.set(sessionId, { value: record, expiresAt: Date.now() + ttlMs });
    for (const listener of [...(this.#watchers.get(sessionId) ?? [])]) listener();
  }

  async update(
    sessionId: string,
    change: (record: SessionRecord) => SessionRecord,
    ttlMs: number,
  ): Promise<SessionRecord | undefined> {
    // Read, change and write with no await between: one process's changes never lose each other.
    const entry = this.#sessions.get(sessionId);
    if (!entry || entry.expiresAt <= Date.now()) return undefined;
    const next = change(entry.value);
    if (next === entry.value) return next;
    entry.value = next;
    entry.expiresAt = Date.now() + ttlMs;
    for (const listener of [...(this.#watchers.get(sessionId) ?? [])]) listener();
    return next;
  }

  watch(sessionId: string, listener: () => void): () => void {
    let listeners = this.#watchers.get(sessionId);
    if (!listeners) {
      listeners = new Set();
      this.#watchers.set(sessionId, listeners);
    }
    listeners.add(listener);
    const set = listeners;
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(sessionId) === set) this.#watchers.delete(sessionId);
    };
  }

  async touch(sessionId: string, ttlMs: number): Promise<boolean> {
    if (!(await this.get(sessionId))) return false;
    const entry = this.#sessions.get(sessionId);
    if (entry) entry.expiresAt = Date.now() + ttlMs;
    return true;
  }

  async delete(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.#sessions) if (entry.expiresAt <= now) this.#sessions.delete(id);
  }
}

/** Streams in this process's memory, each capped at `maxEvents` and dropped `ttlMs` after its last event. */
export class InMemoryEventStore implements EventStore {
  readonly #streams = new Map<string, Expiring<StoredSessionEvent[]>>();
  #appends = 0;

  async append(
    sessionId: string,
    streamKey: string,
    event: StoredSessionEvent,
    limits: { maxEvents: number; ttlMs: number },
  ): Promise<void> {
    // Now and then, streams past their expiry go (sessions that ended without a DELETE).
    if (++this.#appends % 1024 === 0) this.#sweep();
    const key = `${sessionId}\u0000${streamKey}`;
    let entry = this.#streams.get(key);
    if (!entry || entry.expiresAt <= Date.now()) {
      entry = { value: [], expiresAt: 0 };
      this.#streams.set(key, entry);
    }
    entry.value.push(event);
    if (entry.value.length > limits.maxEvents) entry.value.splice(0, entry.value.length - limits.maxEvents);
    entry.expiresAt = Date.now() + limits.ttlMs;
  }

  async replay(sessionId: string, streamKey: string, afterSeq: number): Promise<StoredSessionEvent[]> {
    const entry = this.#streams.get(`${sessionId}\u0000${streamKey}`);
    if (!entry || entry.expiresAt <= Date.now()) return [];
    return entry.value.filter((event) => event.seq > afterSeq);
  }

  async deleteSession(sessionId: string): Promise<void> {
    const prefix = `${sessionId}\u0000`;
    for (const key of this.#streams.keys()) if (key.startsWith(prefix)) this.#streams.delete(key);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.#streams) if (entry.expiresAt <= now) this.#streams.delete(key);
  }
}
