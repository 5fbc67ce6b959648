/**
 * A request written over stdio keeps the text its params went out with: `onfailure` / `onresult` see, and send
 * again, what was on the wire, whatever the caller did to its objects since, and the shared `_meta` by identity.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, type FailedRequest } from '../../src/jsonrpc/connection.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { serialisedOnce } from '../../src/jsonrpc/serialise.js';
import { StdioServerTransport } from '../../src/transports/stdio/server.js';

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

/** A connection on the stdio transport over in-memory pipes, and the messages it wrote (parsed). */
async function stdioConnection() {
  const toConnection = new PassThrough();
  const fromConnection = new PassThrough();
  const written: Array<Record<string, any>> = [];
  let rest = '';
  fromConnection.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) written.push(JSON.parse(line));
  });
  const transport = new StdioServerTransport({ stdin: toConnection, stdout: fromConnection });
  const connection = new Connection(transport);
  open.push(connection);
  await connection.start();
  const answer = (message: unknown) => toConnection.write(`${JSON.stringify(message)}\n`);
  const next = async (count: number) => {
    while (written.length < count) await new Promise((resolve) => setTimeout(resolve, 1));
    return written[count - 1] as Record<string, any>;
  };
  return { connection, answer, next };
}

describe('a resend sends the params as they were written', () => {
  it('after the caller changed its arguments mid-flight, with the shared _meta put back by identity', async () => {
    const { connection, answer, next } = await stdioConnection();
    const meta = serialisedOnce({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
    const args: Record<string, unknown> = { env: 'prod', targets: ['a'] };
    const seen: unknown[] = [];
    const onfailure = (_error: unknown, failed: FailedRequest) => {
      seen.push(failed.params?._meta);
      return failed.resend(failed.params, { timeoutMs: 5_000 });
    };
    const call = connection.request(
      'tools/call',
      { name: 'deploy', arguments: args, _meta: meta },
      { onfailure },
    );
    const first = await next(1);
    args.env = 'dev';
    (args.targets as string[]).push('b');
    answer({
      jsonrpc: '2.0',
      id: first.id,
      error: { code: -32022, message: 'Unsupported protocol version' },
    });
    const second = await next(2);
    expect(second.id).not.toBe(first.id);
    expect(second.params).toEqual(first.params);
    expect(second.params.arguments).toEqual({ env: 'prod', targets: ['a'] });
    expect(seen).toEqual([meta]);
    expect(seen[0]).toBe(meta);
    answer({ jsonrpc: '2.0', id: second.id, result: { content: [] } });
    await expect(call).resolves.toEqual({ content: [] });
  });

  it('params JSON cannot express fail the request as before, and later requests still keep their text', async () => {
    const { connection, answer, next } = await stdioConnection();
    await expect(connection.request('tools/call', { n: 1n } as never)).rejects.toMatchObject({
      code: 'transport_error',
      cause: { code: 'protocol_error', message: expect.stringMatching(/BigInt/) },
    });
    const args = { text: 'x' };
    const call = connection.request(
      'tools/call',
      { name: 'echo', arguments: args },
      {
        onfailure: (_error, failed) => failed.resend(failed.params),
      },
    );
    const first = await next(1);
    args.text = 'changed';
    answer({ jsonrpc: '2.0', id: first.id, error: new RpcError(-32000, 'again').toJSON() });
    const second = await next(2);
    expect(second.params).toEqual({ name: 'echo', arguments: { text: 'x' } });
    answer({ jsonrpc: '2.0', id: second.id, result: {} });
    await expect(call).resolves.toEqual({});
  });
});
