import { describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../src/agent/events.js';
import { TurnCalls } from '../../src/agent/turn-calls.js';

const record = (id: string) => ({ id }) as unknown as ToolCallRecord;

/** A turn whose calls finish when the test says so: `finishCall(i)`, `failCall(i, error)`. */
function controlledTurn(count: number, limit: number) {
  const started: number[] = [];
  const pending = new Map<number, TurnCalls>();
  const finished: string[][] = [];
  const turn = new TurnCalls(
    count,
    limit,
    (index, calls) => {
      started.push(index);
      pending.set(index, calls);
    },
    (records) => void finished.push(records.map((r) => r.id)),
  );
  return {
    turn,
    started,
    finished,
    finishCall: (index: number) => pending.get(index)?.settle(index, record(`r${index}`)),
    failCall: (index: number, error: unknown) => pending.get(index)?.fail(error),
  };
}

describe('TurnCalls', () => {
  it('starts up to the limit, a finished call its slot to the next, and hands the records in call order', async () => {
    const t = controlledTurn(4, 2);
    const running = t.turn.run();
    expect(t.started).toEqual([0, 1]);
    t.finishCall(1);
    expect(t.started).toEqual([0, 1, 2]);
    t.finishCall(2);
    t.finishCall(0);
    expect(t.started).toEqual([0, 1, 2, 3]);
    expect(t.finished).toEqual([]);
    t.finishCall(3);
    await running;
    expect(t.finished).toEqual([['r0', 'r1', 'r2', 'r3']]);
  });

  it('fails at the first failure; calls in flight go on, other slots still start calls, nothing is finished', async () => {
    const t = controlledTurn(4, 2);
    const running = t.turn.run();
    t.failCall(0, new Error('first'));
    await expect(running).rejects.toThrow('first');
    t.failCall(1, new Error('second'));
    expect(t.started).toEqual([0, 1]);
    const u = controlledTurn(4, 2);
    const again = u.turn.run();
    u.failCall(0, new Error('boom'));
    u.finishCall(1);
    expect(u.started).toEqual([0, 1, 2]);
    u.finishCall(2);
    await expect(again).rejects.toThrow('boom');
    expect(u.finished).toEqual([]);
  });

  it('a call that throws as it starts fails the turn, and no later call starts', async () => {
    const started: number[] = [];
    const turn = new TurnCalls(
      3,
      4,
      (index) => {
        started.push(index);
        if (index === 1) throw new Error('listener threw');
      },
      () => {},
    );
    await expect(turn.run()).rejects.toThrow('listener threw');
    expect(started).toEqual([0, 1]);
  });

  it('a throwing finish fails the turn; an empty turn finishes at once', async () => {
    const failing = new TurnCalls(
      1,
      1,
      (index, calls) => calls.settle(index, record('r')),
      () => {
        throw new Error('finish threw');
      },
    );
    await expect(failing.run()).rejects.toThrow('finish threw');
    let finished = false;
    await new TurnCalls(
      0,
      4,
      () => {},
      () => void (finished = true),
    ).run();
    expect(finished).toBe(true);
  });
});
