/**
 * Requests in flight by id: a connection's outgoing ones, and the peer's it is handling. The connection numbers its
 * requests 1, 2, 3, ..., as most peers do, so those in flight are nearly always a window of consecutive ids: each
 * is kept in a ring slot chosen by its id, and a Map holds only an id whose slot is taken (a request still waiting
 * from long ago), or an id that is no positive safe integer. A Map alone, filled and emptied by every burst of
 * requests, grows and shrinks its hash table each time, costs a hash per lookup, and about 45 bytes an entry
 * beside the entry's own record.
 */
import type { RequestId } from './messages.js';

const INITIAL_SLOTS = 16;
/**
 * The ring grows (doubling) when an id finds its slot taken while the ring is at least a quarter full: the
 * window of ids in flight is wider than the ring. A single request held long (a slot taken in an empty ring)
 * sends one id in every `slots` to the Map instead.
 */
const MAX_SLOTS = 1 << 20;
/** A ring emptied with more slots than this goes back to this many: a burst's ring is not kept for life. */
const KEPT_SLOTS = 4096;
/** Up to this an id's slot is `id & mask` (a small-integer operation); past it, `id % slots` (exact below 2^53). */
const MAX_SMALL_ID = 0x3fffffff;

/**
 * The ring: each slot's id, and the entry's fields in columns indexed by slot (one array per field, so an entry
 * costs its fields and no object of its own).
 */
export class IdRing {
  ids: Array<number | undefined>;
  readonly columns: unknown[][];
  #mask: number;
  /** Ids in the ring. */
  count = 0;

  constructor(columnCount: number) {
    this.ids = slots(INITIAL_SLOTS);
    this.columns = Array.from({ length: columnCount }, () => slots(INITIAL_SLOTS));
    this.#mask = INITIAL_SLOTS - 1;
  }

  /** The slot holding `id`, or -1. */
  find(id: RequestId): number {
    if (typeof id !== 'number') return -1;
    const slot = this.#slotOf(id);
    return this.ids[slot] === id ? slot : -1;
  }

  /** A slot for an id not in the ring, now holding it; -1 when the id belongs elsewhere (the caller's Map). */
  claim(id: RequestId): number {
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return -1;
    let slot = this.#slotOf(id);
    if (this.ids[slot] !== undefined) {
      if (this.count * 4 < this.ids.length || this.ids.length >= MAX_SLOTS) return -1;
      this.#resize(this.ids.length * 2);
      slot = this.#slotOf(id);
      if (this.ids[slot] !== undefined) return -1;
    }
    this.ids[slot] = id;
    this.count++;
    return slot;
  }

  /** Empties a slot `find` or `claim` gave. */
  free(slot: number): void {
    this.ids[slot] = undefined;
    const columns = this.columns;
    for (let c = 0; c < columns.length; c++) (columns[c] as unknown[])[slot] = undefined;
    if (--this.count === 0 && this.ids.length > KEPT_SLOTS) this.#resize(KEPT_SLOTS);
  }

  clear(): void {
    this.count = 0;
    if (this.ids.length > KEPT_SLOTS) {
      this.ids.fill(undefined);
      this.#resize(KEPT_SLOTS);
      return;
    }
    this.ids.fill(undefined);
    for (const column of this.columns) column.fill(undefined);
  }

  /** The slot of a positive safe integer; for any other number, a slot that cannot hold it, or no slot. */
  #slotOf(id: number): number {
    return id <= MAX_SMALL_ID ? id & this.#mask : id % this.ids.length;
  }

  /**
   * Moves every entry to a ring of `size` slots (a power of two). The ring only doubles, which keeps distinct
   * slots distinct, or shrinks empty.
   */
  #resize(size: number): void {
    const ids = this.ids;
    const columns = this.columns.slice();
    this.ids = slots(size);
    for (let c = 0; c < columns.length; c++) this.columns[c] = slots(size);
    this.#mask = size - 1;
    for (let from = 0; from < ids.length; from++) {
      const id = ids[from];
      if (id === undefined) continue;
      const to = this.#slotOf(id);
      this.ids[to] = id;
      for (let c = 0; c < columns.length; c++)
        (this.columns[c] as unknown[])[to] = (columns[c] as unknown[])[from];
    }
  }
}

function slots(size: number): undefined[] {
  return new Array(size).fill(undefined);
}

/** The ids of a ring and a Map, oldest first (ids in increasing order: the connection's are sequential). */
export function idsOf(ring: IdRing, others: Map<RequestId, unknown>): RequestId[] {
  const ids: RequestId[] = [];
  for (const id of ring.ids) if (id !== undefined) ids.push(id);
  for (const id of others.keys()) ids.push(id);
  return ids.sort(byId);
}

/** Requests by id, each with one value. */
export class RequestTable<V> {
  readonly #ring = new IdRing(1);
  /** Entries that are not in the ring. */
  readonly #others = new Map<RequestId, V>();

  get size(): number {
    return this.#ring.count + this.#others.size;
  }

  get(id: RequestId): V | undefined {
    const slot = this.#ring.find(id);
    if (slot >= 0) return this.#values()[slot];
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  /** Adds an entry for an id not in the table. */
  set(id: RequestId, value: V): void {
    const slot = this.#ring.claim(id);
    if (slot >= 0) this.#values()[slot] = value;
    else this.#others.set(id, value);
  }

  delete(id: RequestId): boolean {
    const slot = this.#ring.find(id);
    if (slot >= 0) {
      this.#ring.free(slot);
      return true;
    }
    return this.#others.size !== 0 && this.#others.delete(id);
  }

  keys(): RequestId[] {
    return idsOf(this.#ring, this.#others);
  }

  clear(): void {
    this.#ring.clear();
    this.#others.clear();
  }

  #values(): Array<V | undefined> {
    return this.#ring.columns[0] as Array<V | undefined>;
  }
}

function byId(a: RequestId, b: RequestId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}
