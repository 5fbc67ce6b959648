/**
 * The signal of a run started without one. Nothing can abort it (its controller is dropped at once), so a tool
 * call need not hand it to the client: watching it would cost an 'abort' listener per connection and a
 * bookkeeping entry per request for an event that cannot happen.
 *
 * Making one costs 10-50 us on Node 20 (the new signal's prototype is swapped after construction), the agent's
 * own work of several turns, so an agent's runs share one while nothing is left listening on it, and for at
 * most `SHARED_RUNS` runs. A middleware that listens on `context.signal` and never stops listening thus retires the
 * signal (the next run gets a fresh one), and the links AbortSignal.any() leaves on a source that never aborts
 * (Node 20 keeps a WeakRef per call there) go with it after a bounded number of runs instead of piling up.
 */
import { getEventListeners } from 'node:events';

const SHARED_RUNS = 64;

const inert = new WeakSet<AbortSignal>();

/** An agent's supply of its runs' own signals (see above). */
export class RunSignals {
  #current: AbortSignal | undefined;
  #runs = 0;

  /** The signal for a run started without one. */
  take(): AbortSignal {
    const current = this.#current;
    if (current && this.#runs < SHARED_RUNS && getEventListeners(current, 'abort').length === 0) {
      this.#runs++;
      return current;
    }
    const signal = new AbortController().signal;
    inert.add(signal);
    this.#current = signal;
    this.#runs = 1;
    return signal;
  }
}

/** True for a run's own signal that nothing can abort. */
export function isInert(signal: AbortSignal): boolean {
  return inert.has(signal);
}
