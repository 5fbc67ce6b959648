/**
 * Requests in flight by id: a connection's outgoing ones, and the peer's it is handling. The connection numbers its
 * requests 1, 2, 3, ..., as most peers do, so those in flight are nearly always a window of consecutive ids: each
 * is kept in a ring slot chosen by its id, and a Map holds only an id whose slot is taken (a request still waiting
 * from long ago), or an id that is no positive safe integer. A Map alone, filled and emptied by every burst of
 * requests, grows and shrinks its hash table each time, and costs a hash per lookup.
 */
import type { RequestId } from './messages.js';

const INITIAL_SLOTS = 16;
/**
 * The ring grows (doubling) while it is half full, up to this many slots; past that, more requests in flight go
 * to the Map: the ring, kept for the connection's life, stays small.
 */
const MAX_SLOTS = 4096;
/** Up to this an id's slot is `id & mask` (a small-integer operation); past it, `id % slots` (exact below 2^53). */
const MAX_SMALL_ID = 0x3fffffff;

export class RequestTable<V> {
  #ids: Array<number | undefined> = new Array(INITIAL_SLOTS).fill(undefined);
  #values: Array<V | undefined> = new Array(INITIAL_SLOTS).fill(undefined);
  #mask = INITIAL_SLOTS - 1;
  #inRing = 0;
  /** Entries that are not in the ring. */
  readonly #others = new Map<RequestId, V>();

  get size(): number {
    return this.#inRing + this.#others.size;
  }

  get(id: RequestId): V | undefined {
    if (typeof id === 'number') {
      const slot = this.#slotOf(id);
      if (this.#ids[slot] === id) return this.#values[slot];
    }
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  /** Adds an entry for an id not in the table. */
  set(id: RequestId, value: V): void {
    if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) {
      if (this.#inRing * 2 >= this.#ids.length && this.#ids.length < MAX_SLOTS) this.#grow();
      const slot = this.#slotOf(id);
      if (this.#ids[slot] === undefined) {
        this.#ids[slot] = id;
        this.#values[slot] = value;
        this.#inRing++;
        return;
      }
    }
    this.#others.set(id, value);
  }

  delete(id: RequestId): boolean {
    if (typeof id === 'number') {
      const slot = this.#slotOf(id);
      if (this.#ids[slot] === id) {
        this.#ids[slot] = undefined;
        this.#values[slot] = undefined;
        this.#inRing--;
        return true;
      }
    }
    return this.#others.size !== 0 && this.#others.delete(id);
  }

  /** The ids in the table, oldest first (ids in increasing order: the connection's are sequential). */
  keys(): RequestId[] {
    const ids: RequestId[] = [];
    for (const id of this.#ids) if (id !== undefined) ids.push(id);
    for (const id of this.#others.keys()) ids.push(id);
    return ids.sort(byId);
  }

  clear(): void {
    this.#ids.fill(undefined);
    this.#values.fill(undefined);
    this.#inRing = 0;
    this.#others.clear();
  }

  /** The ring slot of a positive safe integer; for any other number, a slot that cannot hold it, or no slot. */
  #slotOf(id: number): number {
    return id <= MAX_SMALL_ID ? id & this.#mask : id % this.#ids.length;
  }

  #grow(): void {
    const ids = this.#ids;
    const values = this.#values;
    const slots = ids.length * 2;
    this.#ids = new Array(slots).fill(undefined);
    this.#values = new Array(slots).fill(undefined);
    this.#mask = slots - 1;
    this.#inRing = 0;
    for (let slot = 0; slot < ids.length; slot++) {
      const id = ids[slot];
      if (id !== undefined) this.set(id, values[slot] as V);
    }
  }
}

function byId(a: RequestId, b: RequestId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}
