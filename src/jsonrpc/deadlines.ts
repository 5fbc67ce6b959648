import { monotonicMs } from '../util/clock.js';

/**
 * Many deadlines on one timer: the timeouts of a connection's outgoing requests. The timer is armed for the
 * earliest deadline; a request that settles leaves it alone (when it fires it finds nothing due and re-arms for
 * the next deadline), so a request costs no timer of its own (setTimeout + clearTimeout were about 40% of the
 * engine's cost of a round trip). While no deadline is held the timer is unref'd: it never keeps a process alive
 * that a per-request timer would not have kept.
 */
/**
 * The deadlines' clock: whole ms since the process started, monotonic (as setTimeout's own clock, so a change
 * of the wall clock moves no deadline). Small integers, which V8 keeps in an object's own field (for 24 days),
 * where epoch ms are beyond that range: each request in flight would hold two boxed numbers of its own for
 * its start and deadline.
 */
export function clockMs(): number {
  return Math.floor(monotonicMs());
}

/**
 * A `clockMs` time as epoch ms: the wall clock now less the monotonic time since. Not `performance.timeOrigin`
 * plus the time: the wall clock drifts from the monotonic one over a process's life (NTP slews it), and that sum
 * read 7 ms behind a Date.now() taken before the request was sent.
 */
export function epochOf(time: number): number {
  return Date.now() - (clockMs() - time);
}

/** A deadline that never comes: an integer (clockMs is never negative), not Infinity, so the field holding it stays a small integer. */
export const NEVER = -1;

export class DeadlineTimer {
  readonly #onFire: (now: number) => number;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;
  #held = 0;
  /**
   * The deadlines progress moved, by request id: every other request's follows from when it was sent and its
   * options, so a request in flight keeps no deadline of its own.
   */
  readonly #moved = new Map<unknown, number>();

  /** `onFire` expires what is due at `now` and returns the next deadline (Infinity when none). */
  constructor(onFire: (now: number) => number) {
    this.#onFire = onFire;
  }

  /** A deadline starts (`clockMs` ms). */
  hold(deadline: number): void {
    if (++this.#held === 1) this.#timer?.ref();
    this.#arm(deadline);
  }

  /** A held deadline moved (progress restarted the timeout of request `id`). */
  move(id: unknown, deadline: number): void {
    this.#moved.set(id, deadline);
    this.#arm(deadline);
  }

  /** The deadline of request `id`, whose own was `deadline` unless progress moved it. */
  of(id: unknown, deadline: number): number {
    return this.#moved.size === 0 ? deadline : (this.#moved.get(id) ?? deadline);
  }

  /** A held deadline ended (request `id` settled). */
  release(id: unknown): void {
    if (this.#moved.size !== 0) this.#moved.delete(id);
    if (--this.#held === 0) this.#timer?.unref();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    this.#held = 0;
    this.#moved.clear();
  }

  #arm(deadline: number): void {
    if (deadline >= this.#armedFor) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#timer = setTimeout(this.#fire, Math.max(0, deadline - clockMs()));
    if (this.#held === 0) this.#timer.unref();
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const next = this.#onFire(clockMs());
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  };
}
