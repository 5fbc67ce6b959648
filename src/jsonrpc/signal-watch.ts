import type { RequestId } from './messages.js';

interface Watched {
  readonly ids: Set<RequestId>;
  readonly listener: () => void;
}

/**
 * One 'abort' listener per signal, shared by the requests that carry it. An agent run passes its signal to
 * every tool call it makes, and each add/remove on Node's EventTarget allocates a listener record and searches
 * the list. A signal no request carries any more keeps its listener until the next macrotask, so the next turn's
 * calls (sent from the same task that settled this turn's) find it still in place.
 */
export class SignalWatch {
  readonly #watched = new Map<AbortSignal, Watched>();
  readonly #onAbort: (id: RequestId, signal: AbortSignal) => void;
  #sweep: NodeJS.Immediate | undefined;

  /** `onAbort` runs once per request the aborted signal still carries. */
  constructor(onAbort: (id: RequestId, signal: AbortSignal) => void) {
    this.#onAbort = onAbort;
  }

  add(signal: AbortSignal, id: RequestId): void {
    const watched = this.#watched.get(signal);
    if (watched) {
      watched.ids.add(id);
      return;
    }
    const ids = new Set<RequestId>([id]);
    const listener = () => {
      this.#watched.delete(signal);
      for (const each of [...ids]) this.#onAbort(each, signal);
    };
    this.#watched.set(signal, { ids, listener });
    signal.addEventListener('abort', listener, { once: true });
  }

  delete(signal: AbortSignal, id: RequestId): void {
    const watched = this.#watched.get(signal);
    if (!watched) return;
    watched.ids.delete(id);
    if (watched.ids.size === 0 && !this.#sweep) {
      this.#sweep = setImmediate(() => this.#release(false));
      this.#sweep.unref();
    }
  }

  /** Removes every listener (the connection closed). */
  clear(): void {
    this.#release(true);
  }

  #release(all: boolean): void {
    if (this.#sweep) clearImmediate(this.#sweep);
    this.#sweep = undefined;
    for (const [signal, watched] of this.#watched) {
      if (!all && watched.ids.size > 0) continue;
      signal.removeEventListener('abort', watched.listener);
      this.#watched.delete(signal);
    }
  }

  /** Signals with a listener (tests: none left once a connection is idle for a task, or closed). */
  get size(): number {
    return this.#watched.size;
  }
}
