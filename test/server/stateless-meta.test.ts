import { describe, expect, it } from 'vitest';
import { serialisedOnce } from '../../src/jsonrpc/serialise.js';
import { MetaReader } from '../../src/server/stateless-meta.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
};

describe('MetaReader', () => {
  it("reads the stdio reader's shared _meta once, and checks every other as it comes", () => {
    const reader = new MetaReader();
    const shared = serialisedOnce(META);
    const first = reader.read({ name: 'a', _meta: shared });
    expect(first).toEqual({
      protocolVersion: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'test', version: '1.0.0' },
      logLevel: undefined,
    });
    expect(reader.read({ name: 'b', _meta: shared })).toBe(first);
    // A _meta of the request's own (parsed whole: a progress token) is read afresh.
    const own = reader.read({ _meta: { ...META, progressToken: 1 } });
    expect(own).not.toBe(first);
    expect(own).toEqual(first);
    // Frozen is not enough: a getter could answer differently each time.
    let version = '2026-07-28';
    const tricky = Object.freeze({
      ...META,
      get 'io.modelcontextprotocol/protocolVersion'() {
        return version;
      },
    });
    expect(reader.read({ _meta: tricky }).protocolVersion).toBe('2026-07-28');
    version = '1999-01-01';
    expect(() => reader.read({ _meta: tricky })).toThrow(/Unsupported protocol version|1999-01-01/);
  });

  it('keeps refusing a bad _meta after a good one was read', () => {
    const reader = new MetaReader();
    reader.read({ _meta: serialisedOnce(META) });
    expect(() =>
      reader.read({ _meta: serialisedOnce({ ...META, 'io.modelcontextprotocol/protocolVersion': 7 }) }),
    ).toThrow(/protocolVersion/);
    expect(() => reader.read({})).toThrow(/Missing _meta/);
  });
});
