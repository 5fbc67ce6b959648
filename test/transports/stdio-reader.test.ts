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
