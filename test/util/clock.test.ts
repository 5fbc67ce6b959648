import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoAt, isoNow } from '../../src/util/clock.js';

describe('isoNow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('matches Date#toISOString at every millisecond width, across seconds, before 1970 and past 9999', () => {
    vi.useFakeTimers();
    const base = Date.UTC(2026, 11, 2, 2, 35, 9, 0);
    const instants = [
      base,
      base + 5,
      base + 50,
      base + 999,
      base + 1000,
      base + 1007,
      base + 61_042,
      Date.UTC(1969, 11, 31, 23, 59, 59, 3),
      Date.UTC(1969, 11, 31, 23, 59, 58, 999),
      Date.UTC(12_345, 0, 1, 0, 0, 0, 42),
    ];
    for (const instant of instants) {
      vi.setSystemTime(instant);
      expect(isoNow()).toBe(new Date(instant).toISOString());
      // Again within the same millisecond: the shared string.
      expect(isoNow()).toBe(new Date(instant).toISOString());
    }
  });

  it('isoAt formats any instant, in any order, as Date#toISOString does', () => {
    const instants = [
      Date.UTC(2026, 11, 2, 2, 35, 9, 7),
      Date.UTC(2026, 11, 2, 2, 35, 8, 999),
      Date.UTC(2026, 11, 2, 2, 35, 9, 7),
      Date.UTC(2001, 0, 1, 0, 0, 0, 70),
      Date.UTC(1969, 11, 31, 23, 59, 59, 3),
    ];
    for (const instant of instants) expect(isoAt(instant)).toBe(new Date(instant).toISOString());
  });
});
