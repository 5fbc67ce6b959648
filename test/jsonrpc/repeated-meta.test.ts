import { describe, expect, it } from 'vitest';
import { RepeatedMetaParser } from '../../src/jsonrpc/repeated-meta.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
};
const META_TEXT = JSON.stringify(META);

function request(id: number, text = 'hi'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text }, _meta: META },
  });
}

type Parse = (parser: RepeatedMetaParser, line: string) => unknown;

/**
 * Each test runs through both ways in: a decoded line (`parse`), and an ASCII line read from the bytes of a chunk
 * it shares with other lines (`parseAscii`).
 */
const MODES: Array<[string, Parse]> = [
  ['parse', (parser, line) => parser.parse(line)],
  [
    'parseAscii',
    (parser, line) => {
      const chunk = Buffer.from(`{"before":1}\n${line}\n{"after":2}`, 'latin1');
      const start = chunk.indexOf(0x0a) + 1;
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
      return parser.parseAscii(chunk, view, start, start + line.length);
    },
  ],
];

for (const [mode, parseWith] of MODES) {
  /** A parser that knows META: enough lines ending with it for it to be learnt. */
  function trained(): RepeatedMetaParser {
    const parser = new RepeatedMetaParser();
    for (let id = 1; id <= 20; id++) parseWith(parser, request(id));
    return parser;
  }

  describe(`RepeatedMetaParser.${mode}`, () => {
    it('parses a repeated trailing _meta once: later messages share one frozen copy, value for value', () => {
      const parser = new RepeatedMetaParser();
      const values = Array.from({ length: 30 }, (_, i) => parseWith(parser, request(i + 1, `text ${i}`)));
      expect(values).toEqual(values.map((_, i) => JSON.parse(request(i + 1, `text ${i}`))));
      const metas = values.map((value) => (value as { params: { _meta: object } }).params._meta);
      // Learnt from two sampled lines (the 1st and the 9th); every line after shares the same frozen object.
      expect(metas.slice(9).every((meta) => meta === metas[9])).toBe(true);
      expect(Object.isFrozen(metas[9])).toBe(true);
      expect(
        Object.isFrozen((metas[9] as Record<string, object>)['io.modelcontextprotocol/clientInfo']),
      ).toBe(true);
      // Before that, each line had its own mutable object.
      expect(metas[0]).not.toBe(metas[1]);
      expect(Object.isFrozen(metas[0])).toBe(false);
    });

    it('learns a result _meta the same way, and a new one when the peer changes it', () => {
      const parser = trained();
      const result = (id: number, name: string) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name, version: '1' } } },
        });
      // Every 8th line that misses is sampled; two sampled lines in a row with the same _meta make it known.
      const values = Array.from({ length: 20 }, (_, i) => parseWith(parser, result(i, 'a')));
      expect(values).toEqual(values.map((_, i) => JSON.parse(result(i, 'a'))));
      const [before, last] = values.slice(-2) as Array<{ result: { _meta: object } }>;
      expect(Object.isFrozen(last!.result._meta)).toBe(true);
      expect(last!.result._meta).toBe(before!.result._meta);
      expect(parseWith(parser, result(99, 'b'))).toEqual(JSON.parse(result(99, 'b')));
    });

    it('gives what JSON.parse gives for lines that end with the known _meta text but hold it elsewhere', () => {
      const tail = `"_meta":${META_TEXT}}}`;
      const lines = [
        // The tail begins inside a key (an escaped quote), not at a member of its own.
        `{"jsonrpc":"2.0","id":1,"method":"m","params":{"abc\\${tail}`,
        // The key repeated: JSON.parse keeps the last value at the first key's place.
        `{"jsonrpc":"2.0","id":2,"method":"m","params":{"_meta":1,"x":2,${tail}`,
        `{"jsonrpc":"2.0","id":3,"params":{"_meta":{"a":1}},"result":{"_meta":null},"params":{${tail}`,
        // An index-like key, which objects enumerate first.
        `{"a":{"_meta":null},"5":{${tail}`,
        // A _meta nested in the last member's last member.
        `{"jsonrpc":"2.0","id":4,"method":"m","params":{"x":{${tail}}`,
      ];
      for (const line of lines) {
        const parser = trained();
        expect(parseWith(parser, line)).toEqual(JSON.parse(line));
      }
    });

    it('reads lines of every length up to the cap with the known _meta shared, short ones after long ones', () => {
      const parser = trained();
      const shared = (parseWith(parser, request(1)) as { params: { _meta: object } }).params._meta;
      for (const length of [1, 900, 1100, 5000, 40_000, 60_000, 3, 2000]) {
        const line = request(length, 'y'.repeat(length));
        const value = parseWith(parser, line) as { params: { _meta: object } };
        expect(value).toEqual(JSON.parse(line));
        expect(value.params._meta).toBe(shared);
      }
    });

    it('parses a long line whole (no marked copy of a large message)', () => {
      const parser = trained();
      const long = request(99, 'x'.repeat(100_000));
      const value = parseWith(parser, long) as { params: { _meta: object } };
      expect(value).toEqual(JSON.parse(long));
      expect(Object.isFrozen(value.params._meta)).toBe(false);
      // A short one after it still shares the known _meta.
      expect(
        Object.isFrozen((parseWith(parser, request(100)) as { params: { _meta: object } }).params._meta),
      ).toBe(true);
    });

    it('throws what JSON.parse throws for a broken line ending with the known _meta', () => {
      const parser = trained();
      const broken = `{"jsonrpc":"2.0","id":1,,"params":{"_meta":${META_TEXT}}}`;
      expect(() => parseWith(parser, broken)).toThrow(SyntaxError);
      expect(() => parseWith(parser, `]"_meta":${META_TEXT}}}`)).toThrow(SyntaxError);
    });

    it('never shares a _meta that differs from line to line (a progress token per request)', () => {
      const parser = new RepeatedMetaParser();
      const line = (id: number) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'm',
          params: { _meta: { ...META, progressToken: id } },
        });
      const values = Array.from({ length: 40 }, (_, i) => parseWith(parser, line(i)));
      values.forEach((value, i) => {
        expect(value).toEqual(JSON.parse(line(i)));
        expect(Object.isFrozen((value as { params: { _meta: object } }).params._meta)).toBe(false);
      });
    });
  });

  describe(`RepeatedMetaParser.${mode}: result responses read from their compact envelope`, () => {
    const result = (id: string) =>
      `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"x"}],"_meta":${META_TEXT}}}`;
    function trainedOnResults(): RepeatedMetaParser {
      const parser = new RepeatedMetaParser();
      for (let id = 1; id <= 20; id++) parseWith(parser, result(String(id)));
      return parser;
    }

    it('gives what JSON.parse gives, the _meta shared, for ids of every form', () => {
      const parser = trainedOnResults();
      const shared = (parseWith(parser, result('1')) as { result: { _meta: unknown } }).result._meta;
      expect(Object.isFrozen(shared)).toBe(true);
      for (const id of ['0', '7', '123456789012345', '1234567890123456', '-3', '1.5', '1e3', '"s"', 'null']) {
        const value = parseWith(parser, result(id)) as { result: { _meta: unknown } };
        expect(value).toEqual(JSON.parse(result(id)));
        expect(Object.keys(value)).toEqual(['jsonrpc', 'id', 'result']);
        expect(value.result._meta).toBe(shared);
      }
    });

    it('throws what JSON.parse throws for an id JSON does not allow, or a result that is not one value', () => {
      const parser = trainedOnResults();
      for (const line of [
        result('01'),
        result(''),
        result('1 2'),
        `{"jsonrpc":"2.0","id":1,"result":[{"_meta":${META_TEXT}}}`,
      ])
        expect(() => parseWith(parser, line)).toThrow(SyntaxError);
    });

    it('keeps the last of repeated members, as JSON.parse does', () => {
      const parser = trainedOnResults();
      for (const line of [
        `{"jsonrpc":"2.0","id":1,"result":{"_meta":1,"a":{"_meta":2},"_meta":${META_TEXT}}}`,
        `{"jsonrpc":"2.0","id":1,"result":{"a":1},"id":2,"result":{"_meta":${META_TEXT}}}`,
      ]) {
        const value = parseWith(parser, line);
        expect(value).toEqual(JSON.parse(line));
        expect(Object.keys(value as object)).toEqual(['jsonrpc', 'id', 'result']);
      }
    });
  });
}
