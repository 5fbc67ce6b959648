import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LocalError } from '../../src/jsonrpc/index.js';
import { serialisedOnce } from '../../src/jsonrpc/serialise.js';
import { LineWriter } from '../../src/transports/stdio/framing.js';
import { StdioServerTransport } from '../../src/transports/stdio/index.js';

/** A stream that records each write it receives, with a buffer limit so back-pressure can be seen. */
function recorder(highWaterMark = 16 * 1024) {
  const writes: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString('utf8'));
      if (hold) release = callback;
      else callback();
    },
  });
  return {
    stream,
    writes,
    hold: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      release?.();
    },
  };
}

describe('stdio LineWriter', () => {
  it("writes each message's line as the bytes of JSON.stringify's text, whatever its ids and characters", async () => {
    const { stream, writes } = recorder(1024 * 1024);
    const writer = new LineWriter(stream);
    const meta = serialisedOnce({ 'io.modelcontextprotocol/clientInfo': { name: 'c "é" 😀', version: '1' } });
    const texts = ['plain', 'é ü', '😀 \u2028 \u0001 "q" \\', '\ud800 lone'];
    const request = (id: unknown, method: string, params: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method,
      params,
    });
    const messages: Array<Record<string, unknown>> = [];
    const ids = [0, -0, 1, 9, 10, 99, 100, 123_456_789, Number.MAX_SAFE_INTEGER, -1, '', 'a', 'q"\u0001é😀'];
    for (const [index, id] of ids.entries()) {
      const text = texts[index % texts.length] as string;
      const method = index % 3 === 0 ? 'tools/call' : index % 3 === 1 ? 'é/😀' : 'resources/read';
      messages.push(request(id, method, { name: 'echo', arguments: { text } }));
      messages.push(request(id, method, { text, _meta: meta }));
      messages.push(request(id, method, { _meta: meta }));
      messages.push(request(id, method, Object.freeze({ text, _meta: meta })));
    }
    messages.push({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'é😀' }], _meta: meta },
    });
    messages.push({ jsonrpc: '2.0', id: 'r', result: { _meta: meta } });
    messages.push({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no "such" method é' } });
    messages.push({ jsonrpc: '2.0', method: 'notifications/message', params: { data: '😀' } });
    // An id that is not a safe integer, and members in another order: serialised whole.
    messages.push({ jsonrpc: '2.0', id: 1.5, method: 'm', params: {} });
    messages.push({ id: 3, jsonrpc: '2.0', method: 'm', params: {} });
    const posted = messages.map((message) => writer.post(message));
    await new Promise((resolve) => process.nextTick(resolve));
    const lines = Buffer.from(writes.join(''), 'utf8').toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toEqual(messages.map((message) => JSON.stringify(message)));
    // A request's params text, less a shared `_meta` it ends with, is what post returns.
    expect(posted[0]).toBe(JSON.stringify(messages[0]?.params));
    expect(posted[1]).toBe(JSON.stringify({ text: texts[0] }));
    expect(posted[2]).toBe('{}');
    expect(posted.at(-1)).toBeUndefined();
    // A response JSON cannot express becomes an internal error for its id; the writer goes on.
    const unserialisable = { jsonrpc: '2.0', id: 5, result: { n: 1n } };
    await writer.write(unserialisable);
    const answer = JSON.parse(writes.at(-1) as string) as { id: number; error: { code: number } };
    expect(answer.id).toBe(5);
    expect(answer.error.code).toBe(-32603);
  });

  it('writes a message larger than any chunk whole, and the small ones around it in order', async () => {
    const { stream, writes } = recorder(64 * 1024 * 1024);
    const writer = new LineWriter(stream);
    const large = 'ü'.repeat(3 * 1024 * 1024);
    const messages = [
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', id: 1, result: { text: large } },
      { jsonrpc: '2.0', method: 'b' },
    ];
    await Promise.all(messages.map((message) => writer.write(message)));
    await writer.write({ jsonrpc: '2.0', method: 'c' });
    const lines = writes.join('').split('\n');
    expect(lines).toEqual(
      [...messages, { jsonrpc: '2.0', method: 'c' }].map((m) => JSON.stringify(m)).concat(''),
    );
  });

  it('writes through a pipe to a child intact, ticks of one message and bursts alike, its chunks reused', async () => {
    // The child echoes what it reads: its output is exactly what reached the pipe.
    const child = spawn(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const received: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise((resolve) => child.stdout.on('end', resolve));
    const writer = new LineWriter(child.stdin);
    const expected: string[] = [];
    let id = 0;
    const send = (size: number) => {
      const message = {
        jsonrpc: '2.0',
        id: ++id,
        method: 'm',
        params: { text: 'é'.repeat(size % 7) + 'x'.repeat(size) },
      };
      expected.push(JSON.stringify(message));
      return writer.write(message);
    };
    for (let round = 0; round < 40; round++) {
      // A tick of one message, then a burst of many of every size, then a tick of one again.
      await send(round);
      await Promise.all(Array.from({ length: round * 5 }, (_, index) => send((index * 997) % 20_000)));
      await send(3);
    }
    child.stdin.end();
    await ended;
    expect(Buffer.concat(received).toString('utf8').split('\n')).toEqual([...expected, '']);
  });

  it('writes every message of a tick as one batch, in order, before the event loop moves on', async () => {
    const { stream, writes } = recorder();
    const writer = new LineWriter(stream);
    const sent = [1, 2, 3].map((id) => writer.write({ jsonrpc: '2.0', id, result: {} }));
    expect(writes).toEqual([]);
    // Sent from promise jobs of the same tick: still the same batch.
    const late = Promise.resolve().then(() => writer.write({ jsonrpc: '2.0', id: 4, result: {} }));
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(writes).toHaveLength(1);
    expect(writes[0]?.split('\n')).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":2,"result":{}}',
      '{"jsonrpc":"2.0","id":3,"result":{}}',
      '{"jsonrpc":"2.0","id":4,"result":{}}',
      '',
    ]);
    await Promise.all([...sent, late]);
    await writer.write({ jsonrpc: '2.0', method: 'later' });
    expect(writes).toHaveLength(2);
  });

  it("writes a tick's first message at once while the ticks before carried one each, the rest at the tick's end", async () => {
    const { stream, writes } = recorder();
    const writer = new LineWriter(stream);
    // A new writer does not know its traffic yet: the first tick is coalesced.
    const first = writer.write({ jsonrpc: '2.0', id: 1, result: {} });
    expect(writes).toEqual([]);
    await first;
    expect(writes).toHaveLength(1);
    // The tick before carried one message: this one's first goes out at once, the next two at its end.
    const sent = [2, 3, 4].map((id) => writer.write({ jsonrpc: '2.0', id, result: {} }));
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n',
      '{"jsonrpc":"2.0","id":2,"result":{}}\n',
    ]);
    await Promise.all(sent);
    expect(writes.slice(2)).toEqual([
      '{"jsonrpc":"2.0","id":3,"result":{}}\n{"jsonrpc":"2.0","id":4,"result":{}}\n',
    ]);
    // That tick carried three: the next one is coalesced again, a post as a write.
    writer.post({ jsonrpc: '2.0', method: 'a' });
    expect(writes).toHaveLength(3);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(writes).toHaveLength(4);
    // One message in that tick: sparse again, and a post goes out at once too.
    writer.post({ jsonrpc: '2.0', method: 'b' });
    expect(writes.at(-1)).toBe('{"jsonrpc":"2.0","method":"b"}\n');
  });

  it("writes a tick's batch in slices of 8 KiB as it fills, in order, every send settled", async () => {
    const { stream, writes } = recorder(1024 * 1024);
    const writer = new LineWriter(stream);
    const text = 'x'.repeat(200);
    const sent = Array.from({ length: 100 }, (_, id) =>
      writer.write({ jsonrpc: '2.0', id, result: { text } }),
    );
    // The full slices went out during the tick (each line is 240 characters: 35 lines reach 8 KiB).
    expect(writes).toHaveLength(2);
    expect(writes.every((chunk) => chunk.length >= 8 * 1024 && chunk.length < 8 * 1024 + 240)).toBe(true);
    await Promise.all(sent);
    expect(writes).toHaveLength(3);
    const ids = writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: 100 }, (_, id) => id));
    // A lone message still waits for the end of the tick, whatever came before.
    const lone = writer.write({ jsonrpc: '2.0', method: 'lone' });
    expect(writes).toHaveLength(3);
    await lone;
    expect(writes).toHaveLength(4);
  });

  it('hands the stream bytes, and a stream past its high-water mark slices of 128 KiB, in order', async () => {
    const chunks: Buffer[] = [];
    const held: Array<() => void> = [];
    const stream = new Writable({
      decodeStrings: false,
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        held.push(callback);
      },
    });
    const writer = new LineWriter(stream);
    // A burst of 300 lines of about 1,950 bytes (960 two-byte characters) to a stream that writes nothing until
    // released.
    const text = 'é'.repeat(960);
    const sent = Array.from({ length: 300 }, (_, id) =>
      writer.write({ jsonrpc: '2.0', id, result: { text } }),
    );
    await new Promise((resolve) => process.nextTick(resolve));
    // The stream queued the slices; each reaches `write` as the one before it completes.
    while (held.length > 0) {
      held.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(sent);
    expect(chunks.every((chunk) => Buffer.isBuffer(chunk))).toBe(true);
    // The first slice (8 KiB) took the stream past its mark; every later one waited for the larger slice.
    const lengths = chunks.map((chunk) => chunk.length);
    expect(lengths[0]).toBeGreaterThanOrEqual(8 * 1024);
    expect(lengths[0]).toBeLessThan(10 * 1024);
    const full = lengths.slice(1, -1);
    expect(full.length).toBeGreaterThan(1);
    expect(full.every((length) => length >= 128 * 1024 && length < 130 * 1024)).toBe(true);
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual(
      Array.from({ length: 300 }, (_, id) => id),
    );
    expect(
      lines.every((line) => (JSON.parse(line) as { result: { text: string } }).result.text === text),
    ).toBe(true);
  });

  it('reports a failed slice with the ids of the requests it held, each once', async () => {
    // A stream whose buffer stays full (every write waits for 'drain') and that then closes.
    const chunks: string[] = [];
    const stream = Object.assign(new EventEmitter(), {
      destroyed: false,
      writableEnded: false,
      write: (chunk: Buffer) => {
        chunks.push(chunk.toString('utf8'));
        return false;
      },
    });
    const failed: number[][] = [];
    const writer = new LineWriter(stream as unknown as Writable, undefined, (_error, ids) =>
      failed.push(ids as number[]),
    );
    const text = 'x'.repeat(200);
    for (let id = 1; id <= 100; id++)
      writer.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { text } }, id);
    await new Promise((resolve) => process.nextTick(resolve));
    stream.emit('close');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const idsOf = (chunk: string) =>
      chunk
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: number }).id);
    // The drain wait is shared: every slice fails at the close, with exactly the ids it wrote.
    expect(failed).toEqual(chunks.map(idsOf));
    expect(failed.flat()).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('settles a send only once the stream drained when its buffer was full', async () => {
    const { stream, writes, hold, release } = recorder(8);
    const writer = new LineWriter(stream);
    hold();
    let settled = false;
    const sent = writer
      .write({ jsonrpc: '2.0', method: 'big', params: { text: 'x'.repeat(64) } })
      .then(() => {
        settled = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toHaveLength(1);
    expect(settled).toBe(false);
    release();
    await sent;
    expect(settled).toBe(true);
  });

  it('sends made while the buffer is full share one drain wait, and reject if the stream closes', async () => {
    const { stream, hold } = recorder(8);
    const writer = new LineWriter(stream);
    hold();
    const sends: Array<Promise<unknown>> = [];
    for (let tick = 0; tick < 20; tick++) {
      sends.push(writer.write({ jsonrpc: '2.0', method: 'big', params: { text: 'x'.repeat(64) } }));
      await new Promise((resolve) => process.nextTick(resolve));
    }
    expect(stream.listenerCount('drain')).toBe(1);
    stream.destroy();
    const outcomes = await Promise.all(
      sends.map((send) =>
        send.then(
          () => 'ok',
          (e: LocalError) => e.code,
        ),
      ),
    );
    expect(outcomes.every((outcome) => outcome === 'connection_closed')).toBe(true);
    expect(stream.listenerCount('drain')).toBe(0);
  });

  it('flush writes a pending batch at once; a destroyed stream rejects it', async () => {
    const { stream, writes } = recorder();
    const writer = new LineWriter(stream);
    const first = writer.write({ jsonrpc: '2.0', method: 'a' });
    const second = writer.write({ jsonrpc: '2.0', method: 'b' });
    expect(writes).toEqual([]);
    writer.flush();
    expect(writes).toEqual(['{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n']);
    await Promise.all([first, second]);
    const gone = new PassThrough();
    const goneWriter = new LineWriter(gone);
    const sentBefore = goneWriter.write({ jsonrpc: '2.0', method: 'c' });
    goneWriter.flush();
    const pending = goneWriter.write({ jsonrpc: '2.0', method: 'd' });
    gone.destroy();
    await sentBefore;
    for (const lost of [pending, new LineWriter(gone).write({ jsonrpc: '2.0', method: 'e' })]) {
      const error = await lost.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LocalError);
      expect((error as LocalError).code).toBe('connection_closed');
    }
  });

  it('the server transport writes what was sent before stdin closed, before reporting the close', async () => {
    const stdin = new PassThrough();
    const { stream, writes } = recorder();
    const transport = new StdioServerTransport({ stdin, stdout: stream });
    let writtenAtClose = -1;
    transport.onclose = () => {
      writtenAtClose = writes.length;
    };
    await transport.start();
    void transport.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 1 },
    });
    await transport.close();
    expect(writtenAtClose).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });

  it("post joins the tick's batch without a promise; a failed write of a posted batch goes to onerror once", async () => {
    const { stream, writes, hold } = recorder(8);
    const errors: unknown[] = [];
    const writer = new LineWriter(stream, (error) => errors.push(error));
    writer.post({ jsonrpc: '2.0', id: 1, result: {} });
    const sent = writer.write({ jsonrpc: '2.0', id: 2, result: {} });
    writer.post({ jsonrpc: '2.0', id: 3, result: {} });
    await sent;
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n',
    ]);
    expect(errors).toEqual([]);
    // A batch that waits for 'drain' and never gets it: the posted ones are reported, the sent one rejects.
    hold();
    writer.post({ jsonrpc: '2.0', method: 'big', params: { text: 'x'.repeat(64) } });
    await new Promise((resolve) => process.nextTick(resolve));
    writer.post({ jsonrpc: '2.0', method: 'more' });
    const waiting = writer.write({ jsonrpc: '2.0', method: 'sent' });
    await new Promise((resolve) => process.nextTick(resolve));
    stream.destroy();
    await expect(waiting).rejects.toThrow(/closed/);
    expect(errors).toHaveLength(2);
    expect(errors.every((error) => (error as LocalError).code === 'connection_closed')).toBe(true);
    // Something JSON cannot express that is no response: thrown to the poster, nothing queued.
    expect(() => writer.post({ jsonrpc: '2.0', method: 'bad', params: { n: 1n } })).toThrow(LocalError);
  });

  it('the server transport posts to onerror once closed', async () => {
    const stdin = new PassThrough();
    const { stream, writes } = recorder();
    const transport = new StdioServerTransport({ stdin, stdout: stream });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    transport.post({ jsonrpc: '2.0', id: 1, result: {} });
    await transport.close();
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    transport.post({ jsonrpc: '2.0', id: 2, result: {} });
    expect(errors.map((error) => error.message)).toEqual(['stdio transport is closed']);
  });
});
