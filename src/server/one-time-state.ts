/**
 * One-time requestState (2026-07-28 basic/patterns/mrtr, Server Requirements: a server may refuse a state it has
 * already seen). Each sealed state then carries a nonce, and opening it claims the nonce until the state expires:
 * the second presentation, on this instance or any other sharing the store, is refused. The shape is Redis's
 * `SET key 1 NX PX ttl`.
 */
export interface OneTimeStateStore {
  /** True the first time `id` is claimed before `expiresAt` (epoch ms); false for a replay. */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

export interface InMemoryOneTimeStateStoreOptions {
  /** Claims remembered at once (default 100,000); past it the oldest expired ones go first, then a refusal. */
  maxEntries?: number;
}

/** The default store: this process's memory, bounded; a claim is forgotten once its state has expired. */
export class InMemoryOneTimeStateStore implements OneTimeStateStore {
  readonly #claims = new Map<string, number>();
  readonly #max: number;

  constructor(options: InMemoryOneTimeStateStoreOptions = {}) {
    this.#max = Math.max(1, Math.floor(options.maxEntries ?? 100_000));
  }

  get size(): number {
    return this.#claims.size;
  }

  async claim(id: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    const known = this.#claims.get(id);
    if (known !== undefined && known > now) return false;
    if (this.#claims.size >= this.#max) this.#sweep(now);
    // Full of live claims: refusing is safe (the client starts over), forgetting one would allow a replay.
    if (this.#claims.size >= this.#max) return false;
    this.#claims.set(id, expiresAt);
    return true;
  }

  #sweep(now: number): void {
    for (const [id, expiresAt] of this.#claims) if (expiresAt <= now) this.#claims.delete(id);
  }
}
