/**
 * A response past the stdio line cap (10 MiB) fails its own request, with a clear error, and the connection
 * and every other request on it go on; the bytes are dropped as they arrive, never held.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/index.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { responseIdOf } from '../../src/transports/stdio/client.js';
import { LineReader } from '../../src/transports/stdio/framing.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'big-result-server.mjs');

describe('a response past the stdio cap', () => {
  it.each(['2026-07-28', '2025-11-25'])('fails that call only (%s)', async (protocolVersion) => {
    await using client = await McpClient.connect(
      { command: process.execPath, args: [FIXTURE] },
      { protocolVersion, cache: false },
    );
    const [big, small] = await Promise.allSettled([
      client.callTool({ name: 'big' }),
      client.callTool({ name: 'small' }),
    ]);
    expect(big.status).toBe('rejected');
    const error = (big as PromiseRejectedResult).reason as LocalError;
    expect(error).toBeInstanceOf(LocalError);
    expect(error.code).toBe('response_too_large');
    expect(error.message).toMatch(/^result exceeded 10 MiB/);
    expect(error.message).not.toMatch(/x{10}/); // the result itself is never echoed
    expect(small).toMatchObject({ status: 'fulfilled', value: { content: [{ type: 'text', text: 'ok' }] } });
    const again = await client.callTool({ name: 'small' });
    expect(again.content).toEqual([{ type: 'text', text: 'ok' }]);
  });
});

describe('responseIdOf: whose response a skipped line was', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"result":{"content":[', ']}}', 7],
    ['{"id":"a\\"b","result":{', '}}', 'a"b'],
    ['{"result":{"content":[{"id":1', '"}]},"jsonrpc":"2.0","id":42}', 42],
    ['{"result":{"x":1', '},"id":"req-9","jsonrpc":"2.0"}\r', 'req-9'],
  ])('%s … %s -> %s', (head, tail, id) => {
    expect(responseIdOf(head, tail)).toBe(id);
  });

  it.each([
    ['{"result":{"items":[{"id":1', '{"id":5}}}'], // only nested ids
    ['{"jsonrpc":"2.0","method":"notifications/message","params":{', '}}'],
    ['garbage', 'garbage'],
  ])('cannot tell %s … %s', (head, tail) => {
    expect(responseIdOf(head, tail)).toBeUndefined();
  });
});

describe('LineReader with onoversized', () => {
  it('skips a long line in pieces, keeping only its ends, then reads on', () => {
    const values: unknown[] = [];
    const seen: Array<[string, string | undefined, number, boolean]> = [];
    const reader = new LineReader(
      {
        onvalue: (value) => values.push(value),
        onbadline: () => {},
        onoverflow: () => {
          throw new Error('not fatal: the handler chose to skip');
        },
        onoversized: (line) => {
          seen.push([line.head.slice(0, 10), line.tail?.slice(-6), line.bytes, line.complete]);
          return true;
        },
      },
      100,
    );
    reader.push(Buffer.from('{"a":1}\n{"jsonrpc":"2.0","id":3,"result":"'));
    for (let i = 0; i < 50; i++) reader.push(Buffer.from('y'.repeat(20)));
    expect(reader.buffered).toBe(0);
    reader.push(Buffer.from('"}\n{"b":2}\n'));
    expect(values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(seen).toEqual([
      ['{"jsonrpc"', undefined, 114, false],
      ['{"jsonrpc"', 'yyyy"}', 1036, true],
    ]);
  });

  it('a line still unfinished at 16 times the cap ends the stream', () => {
    const overflows: string[] = [];
    const reader = new LineReader(
      {
        onvalue: () => {},
        onbadline: () => {},
        onoverflow: (error) => overflows.push(error.message),
        onoversized: () => true,
      },
      100,
    );
    reader.push(Buffer.from('{'));
    for (let i = 0; i < 20; i++) reader.push(Buffer.from('z'.repeat(100)));
    expect(overflows).toEqual(['a message exceeded 100 bytes without a newline']);
  });
});
