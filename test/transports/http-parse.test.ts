import { describe, expect, it } from 'vitest';
import { findKeyProblem, parseBody } from '../../src/transports/http/server/parse.js';

describe('findKeyProblem: duplicate keys at every object size', () => {
  it('finds a repeat in a small object, a big one, and past the switch to a set', () => {
    expect(findKeyProblem('{"a":1,"b":2,"a":3}')).toBe('duplicate key "a"');
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    const big = `{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{${keys.join(',')}}}}`;
    expect(findKeyProblem(big)).toBeUndefined();
    for (const at of [1, 15, 16, 17, 39]) {
      const repeated = `{"arguments":{${[...keys, `"k${at}":0`].join(',')}}}`;
      expect(findKeyProblem(repeated)).toBe(`duplicate key "k${at}"`);
    }
  });

  it('compares a message and its params case-insensitively, other objects exactly, after unescaping', () => {
    expect(findKeyProblem('{"jsonrpc":"2.0","id":1,"method":"a","Method":"b"}')).toBe(
      'duplicate key "Method"',
    );
    expect(findKeyProblem('{"jsonrpc":"2.0","id":1,"method":"a","params":{"name":"x","NAME":"y"}}')).toBe(
      'duplicate key "NAME"',
    );
    expect(findKeyProblem('{"params":{"arguments":{"a":1,"A":2}}}')).toBeUndefined();
    expect(findKeyProblem('{"method":"a","\\u006dethod":"b"}')).toBe('duplicate key "method"');
  });
});

describe('parseBody: the cheap check never lets a key problem through', () => {
  const refused = (text: string) => {
    const parsed = parseBody(text);
    return parsed.ok ? undefined : parsed.message;
  };

  it('refuses what the exact scan finds, with its message', () => {
    for (const text of [
      '{"a":1,"b":2,"a":3}',
      '{"jsonrpc":"2.0","id":1,"method":"a","Method":"b"}',
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{"name":"x","NAME":"y"}}',
      '{"method":"a","\\u006dethod":"b"}',
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"id":2,"ID":3}]',
      '{"params":{"arguments":{"x":{"y":1,"y" : 2}}}}',
      // A repeat hidden next to a string holding what looks like a key.
      '{"params":{"arguments":{"s":"\\":1,\\"","a":1,"a":2}}}',
      `${'['.repeat(257)}${']'.repeat(257)}`,
    ]) {
      expect(refused(text)).toBe(`Invalid Request: ${findKeyProblem(text)}`);
    }
  });

  it('accepts mixed-case members, keys that differ only in case below params, and deep but allowed nesting', () => {
    expect(
      refused('{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestState":"s","inputResponses":{}}}'),
    ).toBe(undefined);
    expect(refused('{"params":{"arguments":{"a":1,"A":2}}}')).toBeUndefined();
    expect(refused(`${'['.repeat(256)}${']'.repeat(256)}`)).toBeUndefined();
    expect(refused('{ "a" : "x:y" , "b":{"\\"c":1} }')).toBeUndefined();
  });

  it('agrees with the exact scan on generated bodies', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n);
    };
    const names = ['a', 'A', 'b', 'params', 'Params', 'method', 'METHOD', '\\u0061', 'x:y', '\\"q'];
    const value = (depth: number): string => {
      const kind = depth === 0 ? random(2) : depth > 4 ? 3 : random(5);
      if (kind === 0) {
        const members = Array.from(
          { length: random(6) },
          () => `"${names[random(names.length)]}":${value(depth + 1)}`,
        );
        return `{${members.join(random(2) ? ',' : ' , ')}}`;
      }
      if (kind === 1) return `[${Array.from({ length: random(3) }, () => value(depth + 1)).join(',')}]`;
      if (kind === 2) return `"${names[random(names.length)]}"`;
      return String(random(100));
    };
    const seen = { clean: 0, refused: 0 };
    for (let i = 0; i < 3000; i++) {
      const text = value(0);
      const problem = findKeyProblem(text);
      expect(refused(text)).toBe(problem === undefined ? undefined : `Invalid Request: ${problem}`);
      seen[problem === undefined ? 'clean' : 'refused']++;
    }
    // Both verdicts were exercised, not one of them only.
    expect(Math.min(seen.clean, seen.refused)).toBeGreaterThan(300);
  });
});
