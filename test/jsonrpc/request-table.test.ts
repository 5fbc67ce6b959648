import { describe, expect, it } from 'vitest';
import { RequestTable } from '../../src/jsonrpc/request-table.js';

describe('RequestTable', () => {
  it('keeps sequential ids, finds each once, and forgets deleted ones', () => {
    const table = new RequestTable<string>();
    for (let id = 1; id <= 1000; id++) table.set(id, `v${id}`);
    expect(table.size).toBe(1000);
    for (let id = 1; id <= 1000; id++) expect(table.get(id)).toBe(`v${id}`);
    for (let id = 1; id <= 1000; id += 2) expect(table.delete(id)).toBe(true);
    expect(table.delete(1)).toBe(false);
    expect(table.size).toBe(500);
    expect(table.get(1)).toBeUndefined();
    expect(table.get(2)).toBe('v2');
  });

  it('keeps an id whose slot a long-held request takes, and ids the ring does not hold', () => {
    const table = new RequestTable<string>();
    table.set(5, 'held');
    // Windows of 32 in flight, long after id 5: some of these ids share its slot.
    for (let start = 6; start < 20_000; start += 32) {
      for (let id = start; id < start + 32; id++) table.set(id, `v${id}`);
      for (let id = start; id < start + 32; id++) {
        expect(table.get(id)).toBe(`v${id}`);
        expect(table.delete(id)).toBe(true);
      }
    }
    expect(table.get(5)).toBe('held');
    for (const odd of ['5', 'x', 1.5, -3, 0, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      expect(table.get(odd)).toBeUndefined();
      table.set(odd, `odd ${odd}`);
      expect(table.get(odd)).toBe(`odd ${odd}`);
    }
    expect(table.get(5)).toBe('held');
    expect(table.size).toBe(8);
    for (const odd of ['5', 'x', 1.5, -3, 0, 2 ** 40, Number.MAX_SAFE_INTEGER])
      expect(table.delete(odd)).toBe(true);
    expect(table.size).toBe(1);
  });

  it('holds a burst of 10,000 in flight, and works the same once the burst is over (its ring shrunk)', () => {
    const table = new RequestTable<number>();
    for (let round = 0; round < 2; round++) {
      const base = 1 + round * 10_000;
      for (let id = base; id < base + 10_000; id++) table.set(id, id * 2);
      expect(table.size).toBe(10_000);
      for (let id = base; id < base + 10_000; id++) expect(table.get(id)).toBe(id * 2);
      expect(table.keys()).toEqual(Array.from({ length: 10_000 }, (_, i) => base + i));
      for (let id = base + 9_999; id >= base; id--) expect(table.delete(id)).toBe(true);
      expect(table.size).toBe(0);
      expect(table.keys()).toEqual([]);
      expect(table.get(base)).toBeUndefined();
    }
  });

  it('keeps a long-held request while a wider window of later ids grows the ring around it', () => {
    const table = new RequestTable<string>();
    table.set(3, 'held');
    for (let id = 4; id < 30_004; id++) table.set(id, `v${id}`);
    expect(table.size).toBe(30_001);
    expect(table.get(3)).toBe('held');
    for (let id = 4; id < 30_004; id++) expect(table.get(id)).toBe(`v${id}`);
    for (let id = 4; id < 30_004; id++) table.delete(id);
    expect(table.get(3)).toBe('held');
    expect(table.keys()).toEqual([3]);
  });

  it('lists ids in increasing order (the order the connection sent them)', () => {
    const table = new RequestTable<string>();
    table.set(70, 'a');
    table.set(6, 'b');
    table.set(134, 'c');
    table.set('s', 'd');
    expect(table.keys()).toEqual([6, 70, 134, 's']);
  });
});

describe('RequestTable.clear', () => {
  it('forgets every entry, in the ring and out of it', () => {
    const table = new RequestTable<string>();
    for (const id of [1, 2, 3, 'a', 0, 17]) table.set(id, String(id));
    table.clear();
    expect(table.size).toBe(0);
    for (const id of [1, 2, 3, 'a', 0, 17]) expect(table.get(id)).toBeUndefined();
    table.set(2, 'again');
    expect(table.get(2)).toBe('again');
  });
});

describe('RequestTable: large ids', () => {
  it('keeps windows of ids past 2^30, 2^31 and near 2^53', () => {
    const table = new RequestTable<number>();
    for (const base of [2 ** 30 - 40, 2 ** 31 - 40, 2 ** 40, Number.MAX_SAFE_INTEGER - 200]) {
      for (let id = base; id < base + 100; id++) table.set(id, id);
      for (let id = base; id < base + 100; id++) expect(table.get(id)).toBe(id);
      expect(table.get(-base)).toBeUndefined();
      for (let id = base; id < base + 100; id++) expect(table.delete(id)).toBe(true);
      expect(table.size).toBe(0);
    }
    for (const odd of [Number.POSITIVE_INFINITY, Number.NaN, -(2 ** 40)])
      expect(table.get(odd)).toBeUndefined();
  });
});
