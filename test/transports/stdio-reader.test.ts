import { describe, expect, it } from 'vitest';
import { LineReader } from '../../src/transports/stdio/framing.js';

function reader(maxLineBytes?: number) {
  const values: unknown[] = [];
  const bad: string[] = [];
  const overflows: string[] = [];
  const lineReader = new LineReader(
    {
      onvalue: (value) => values.push(value),
      onbadline: (_error, line) => bad.push(line),
      onoverflow: (error) => overflows.push(error.code),
    },
    maxLineBytes,
  );
  return { lineReader, values, bad, overflows };
}

describe('stdio LineReader', () => {
  it('parses every line of a chunk, skipping empty lines and tolerating CRLF', () => {
    const { lineReader, values, bad } = reader();
    lineReader.push(Buffer.from('{"id":1}\n\n{"id":2}\r\nnot json\n{"id":3}\n{"id":'));
    expect(values).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(bad).toEqual(['not json']);
    expect(lineReader.buffered).toBe(6);
    lineReader.push(Buffer.from('4}\n{"id":5}\n'));
    expect(values).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }]);
    expect(lineReader.buffered).toBe(0);
  });

  it('reads a backlog (a full read of lines) from its bytes as it reads a short run: every value, CRLF and bad lines', () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', client: { name: 'c' } };
    const line = (id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', _meta: meta } });
    const lines = Array.from({ length: 600 }, (_, index) => line(index + 1));
    lines[100] = 'not json';
    lines[200] = `${line(201)}\r`;
    const text = `${lines.join('\n')}\n${line(601).slice(0, 20)}`;
    const pieces = Array.from({ length: Math.ceil(text.length / 1000) }, (_, index) =>
      text.slice(index * 1000, (index + 1) * 1000),
    );
    for (const chunks of [[text], pieces]) {
      const { lineReader, values, bad } = reader();
      for (const chunk of chunks) lineReader.push(Buffer.from(chunk, 'latin1'));
      const expected = lines.filter((_, index) => index !== 100).map((l) => JSON.parse(l));
      expect(values).toEqual(expected);
      expect(bad).toEqual(['not json']);
      expect(lineReader.buffered).toBe(20);
      // The repeated _meta is learnt, and shared by the later lines, by either path.
      const metas = values.map((value) => (value as { params: { _meta: object } }).params._meta);
      expect(metas.at(-1)).toBe(metas.at(-2));
      expect(Object.isFrozen(metas.at(-1))).toBe(true);
    }
  });

  it('reads chunks of one line each, as a sparse peer writes them: ASCII, non-ASCII, CRLF, bad, past the cap', () => {
    const { lineReader, values, bad, overflows } = reader(64);
    lineReader.push(Buffer.from('{"id":1,"text":"plain"}\n'));
    lineReader.push(Buffer.from('{"id":2,"text":"h\u00e9llo \u{1f600}"}\n'));
    lineReader.push(Buffer.from('{"id":3}\r\n'));
    lineReader.push(Buffer.from('nope\n'));
    lineReader.push(Buffer.from('{"id":4}\n'));
    expect(values).toEqual([
      { id: 1, text: 'plain' },
      { id: 2, text: 'h\u00e9llo \u{1f600}' },
      { id: 3 },
      { id: 4 },
    ]);
    expect(bad).toEqual(['nope']);
    // A line past the cap is refused whole, even alone in its chunk.
    lineReader.push(Buffer.from(`{"id":5,"text":"${'x'.repeat(80)}"}\n`));
    expect(overflows).toEqual(['message_too_large']);
    expect(values).toHaveLength(4);
  });

  it('decodes non-ASCII lines, and a character split across chunks', () => {
    const { lineReader, values } = reader();
    const bytes = Buffer.from('{"text":"café ☕"}\n{"text":"plain"}\n{"text":"naïve"}\n');
    const split = bytes.indexOf(Buffer.from('☕')) + 1;
    lineReader.push(bytes.subarray(0, split));
    lineReader.push(bytes.subarray(split));
    expect(values).toEqual([{ text: 'café ☕' }, { text: 'plain' }, { text: 'naïve' }]);
  });

  it('refuses a complete line past the cap inside one chunk', () => {
    const { lineReader, values, overflows } = reader(16);
    lineReader.push(Buffer.from(`{"a":1}\n{"long":"${'x'.repeat(32)}"}\n{"b":2}\n`));
    expect(values).toEqual([{ a: 1 }]);
    expect(overflows).toEqual(['message_too_large']);
  });
});
