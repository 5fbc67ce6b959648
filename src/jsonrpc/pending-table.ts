/**
 * A connection's outgoing requests in flight, by id. In the ring each request is its four fields in four
 * columns: no record of its own while it waits (a 56-byte object per request, a third of what a request held in
 * flight kept beyond its promise). `take` and `get` hand out a Pending made then, which dies young.
 */
import type { Params, Result } from './incoming.js';
import type { RequestId } from './messages.js';
import type { Pending, RequestKind } from './pending.js';
import { IdRing, idsOf } from './request-table.js';

const KIND = 0;
const SENT = 1;
const RESOLVE = 2;

export class PendingTable {
  readonly #ring = new IdRing(3);
  /** Requests that are not in the ring. */
  readonly #others = new Map<RequestId, Pending>();

  get size(): number {
    return this.#ring.count + this.#others.size;
  }

  /** Adds a request whose id is not in the table. */
  add(id: RequestId, kind: RequestKind, sent: string | Params, resolve: Pending['resolve']): void {
    const slot = this.#ring.claim(id);
    if (slot < 0) {
      this.#others.set(id, { kind, sent, resolve });
      return;
    }
    const columns = this.#ring.columns;
    (columns[KIND] as unknown[])[slot] = kind;
    (columns[SENT] as unknown[])[slot] = sent;
    (columns[RESOLVE] as unknown[])[slot] = resolve;
  }

  /** What a request was sent as, once the transport wrote it (`Pending.sent`). */
  setSent(id: RequestId, sent: string): void {
    const slot = this.#ring.find(id);
    if (slot >= 0) (this.#ring.columns[SENT] as unknown[])[slot] = sent;
    else {
      const pending = this.#others.get(id);
      if (pending !== undefined) pending.sent = sent;
    }
  }

  get(id: RequestId): Pending | undefined {
    const slot = this.#ring.find(id);
    if (slot >= 0) return this.#pendingAt(slot);
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  /** Removes a request and returns it; undefined when it is not in the table (settled already). */
  take(id: RequestId): Pending | undefined {
    const slot = this.#ring.find(id);
    if (slot >= 0) {
      const pending = this.#pendingAt(slot);
      this.#ring.free(slot);
      return pending;
    }
    if (this.#others.size === 0) return undefined;
    const pending = this.#others.get(id);
    if (pending !== undefined) this.#others.delete(id);
    return pending;
  }

  keys(): RequestId[] {
    return idsOf(this.#ring, this.#others);
  }

  #pendingAt(slot: number): Pending {
    const columns = this.#ring.columns;
    return {
      kind: (columns[KIND] as RequestKind[])[slot] as RequestKind,
      sent: (columns[SENT] as Array<string | Params>)[slot] as string | Params,
      resolve: (columns[RESOLVE] as Array<(result: Result | Promise<Result>) => void>)[
        slot
      ] as Pending['resolve'],
    };
  }
}
