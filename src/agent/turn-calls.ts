/**
 * The tool calls of one turn, at most `limit` in flight: each call hands its record to `settle` from its own
 * reaction, so a turn spends no `Promise.all` (a reaction per call and one more for the whole) on them, and
 * the last one hands them all, in the calls' order, to `finish` before the turn's promise settles. As with
 * `Promise.all` over workers that each take the next call, the first failure rejects the turn at once, the
 * calls in flight run to their end, and the other slots keep starting calls.
 */
import { type AgentEvent, type ToolCallRecord, callRecord } from './events.js';
import type { OutcomeSink, ToolOutcome } from './middleware.js';
import type { ToolCall } from './model.js';
import type { RegisteredTool } from './registry.js';
import { monotonicMs } from '../util/clock.js';

export class TurnCalls {
  readonly #records: ToolCallRecord[];
  readonly #limit: number;
  readonly #start: (index: number, turn: TurnCalls) => void;
  readonly #finish: (records: readonly ToolCallRecord[]) => void;
  #resolve: (() => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #started = 0;
  #settled = 0;

  constructor(
    count: number,
    limit: number,
    start: (index: number, turn: TurnCalls) => void,
    finish: (records: readonly ToolCallRecord[]) => void,
  ) {
    this.#records = new Array<ToolCallRecord>(count);
    this.#limit = Math.max(1, limit);
    this.#start = start;
    this.#finish = finish;
  }

  /** Starts the first calls; settles once `finish` has every record, or at the first failure. */
  run(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      if (this.#records.length === 0) this.#finished();
      const first = Math.min(this.#records.length, this.#limit);
      while (this.#started < first) if (!this.#next()) break;
    });
  }

  /** A call's record: kept at its index, and its slot takes the next call. */
  settle(index: number, record: ToolCallRecord): void {
    this.#records[index] = record;
    if (++this.#settled === this.#records.length) this.#finished();
    else if (this.#started < this.#records.length) this.#next();
  }

  /**
   * A call failed (a listener or middleware threw, or a protocol error the run rethrows): the turn fails. A bound
   * function, handed to each call's reaction as its rejection handler.
   */
  readonly fail = (error: unknown): void => {
    this.#reject?.(error);
  };

  #finished(): void {
    try {
      this.#finish(this.#records);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.#resolve?.();
  }

  /** Starts the next call; false when starting it threw (the turn has failed then). */
  #next(): boolean {
    const index = this.#started++;
    try {
      this.#start(index, this);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }
}

/** One call of a turn, from its start to its record: where its outcome goes (OutcomeSink). */
export class TurnCall implements OutcomeSink {
  readonly #turn: TurnCalls;
  readonly #index: number;
  readonly #call: ToolCall;
  readonly #step: number;
  readonly #tool: RegisteredTool | undefined;
  readonly #emit: ((event: AgentEvent) => void) | undefined;
  readonly #startedAt: string;
  readonly #started: number;

  constructor(
    turn: TurnCalls,
    index: number,
    call: ToolCall,
    step: number,
    tool: RegisteredTool | undefined,
    emit: ((event: AgentEvent) => void) | undefined,
    startedAt: string,
    started: number,
  ) {
    this.#turn = turn;
    this.#index = index;
    this.#call = call;
    this.#step = step;
    this.#tool = tool;
    this.#emit = emit;
    this.#startedAt = startedAt;
    this.#started = started;
  }

  /** The call's record, told to the run's listener and kept by the turn. */
  outcome(outcome: ToolOutcome): void {
    let record: ToolCallRecord;
    try {
      const elapsed = monotonicMs() - this.#started;
      record = callRecord(this.#call, this.#step, this.#tool, outcome, this.#startedAt, elapsed);
      this.#emit?.({ type: 'tool_result', record });
    } catch (error) {
      this.#turn.fail(error);
      return;
    }
    this.#turn.settle(this.#index, record);
  }

  fail(error: unknown): void {
    this.#turn.fail(error);
  }
}
