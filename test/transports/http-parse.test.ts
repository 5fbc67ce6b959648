import { describe, expect, it } from 'vitest';
import { findKeyProblem } from '../../src/transports/http/server/parse.js';

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
