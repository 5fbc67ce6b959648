import type { ResolvedOptions } from './options.js';
import type { ServerSessionHandle } from './types.js';

/** What the registry needs of a session's transport, whichever HTTP transport it is. */
interface SessionTransportLike {
  readonly lastActivity: number;
  /** Requests in flight or a stream open: not idle, whatever the clock says. */
  readonly busy: boolean;
  close(): Promise<void>;
}

interface SessionEntry<T extends SessionTransportLike = SessionTransportLike> {
  readonly transport: T;
  handle: ServerSessionHandle | undefined;
  /**
   * Who opened the session (the auth guard's principal). 2025-11-25 basic/security_best_practices, Session
   * Hijacking: a session id is bound to its user, so another caller presenting it finds no session.
   */
  readonly principal?: string | undefined;
}

/** An unguessable id of visible ASCII (2025-11-25 basic/transports: Session Management). */
export function mintSessionId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Live handshake-era sessions: a cap (503 past it, counting sessions being set up), idle expiry by one unref'd
 * sweep timer that exists only while sessions do.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, SessionEntry>();
  readonly #options: ResolvedOptions;
  #reserved = 0;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: ResolvedOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Claims room for a session being created; false when the cap is reached. Pair with `release` or `add`. */
  reserve(): boolean {
    if (this.#sessions.size + this.#reserved >= this.#options.maxSessions) return false;
    this.#reserved++;
    return true;
  }

  release(): void {
    if (this.#reserved > 0) this.#reserved--;
  }

  /** Registers a reserved session. */
  add(id: string, entry: SessionEntry): void {
    this.release();
    this.#sessions.set(id, entry);
    this.#startSweeper();
  }

  /** The session, when it is of this kind and was opened by this principal (undefined for both without auth). */
  get<T extends SessionTransportLike>(
    id: string,
    kind: new (...args: never[]) => T,
    principal: string | undefined,
  ): SessionEntry<T> | undefined {
    const entry = this.#sessions.get(id);
    if (!entry || !(entry.transport instanceof kind) || entry.principal !== principal) return undefined;
    return entry as SessionEntry<T>;
  }

  /** Forgets a session (its transport already closed or closing). */
  delete(id: string): void {
    this.#sessions.delete(id);
    if (this.#sessions.size === 0 && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  /** Ends a session: through the server's handle when there is one, so the core forgets it too. */
  async terminate(id: string): Promise<void> {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    this.delete(id);
    try {
      if (entry.handle) await entry.handle.close();
    } finally {
      await entry.transport.close();
    }
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#sessions.keys()].map((id) => this.terminate(id)));
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    const idle = this.#options.sessionIdleTimeoutMs;
    this.#sweeper = setInterval(() => this.#sweep(), Math.max(10, Math.min(idle / 2, 60_000)));
    this.#sweeper.unref?.();
  }

  #sweep(): void {
    const deadline = Date.now() - this.#options.sessionIdleTimeoutMs;
    for (const [id, entry] of this.#sessions) {
      if (!entry.transport.busy && entry.transport.lastActivity < deadline) {
        this.#options.logger.debug(
          `session ${id} expired after ${this.#options.sessionIdleTimeoutMs} ms idle`,
        );
        void this.terminate(id).catch(() => {});
      }
    }
  }
}
