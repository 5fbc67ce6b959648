/**
 * Prompts with an `argsSchema`: prompts/list lists the arguments the schema declares, prompts/get validates the
 * arguments before the handler runs (-32602 otherwise), in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/index.js';
import { type LegacyClient, legacyClient, modernError, modernResult } from './support.js';

const clients: LegacyClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function makeServer() {
  const server = new McpServer({ name: 'prompts', version: '1' });
  const runs: string[] = [];
  const review = server.registerPrompt(
    'review',
    {
      description: 'Review code',
      argsSchema: z.object({
        code: z.string().describe('The code to review'),
        style: z.enum(['terse', 'thorough']).optional(),
      }),
    },
    ({ code, style }) => {
      runs.push(code);
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `${style ?? 'terse'}: ${code}` } }],
      };
    },
  );
  server.registerPrompt(
    'greet',
    {
      argsSchema: {
        type: 'object',
        properties: { name: { type: 'string', title: 'Name', minLength: 2 } },
        required: ['name'],
      },
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }] }),
  );
  return { server, runs, review };
}

describe('prompt argsSchema', () => {
  it('2026-07-28: lists the arguments the schema declares', async () => {
    const { server } = makeServer();
    const list = await modernResult(server, 'prompts/list');
    expect(list.prompts).toEqual([
      {
        name: 'review',
        description: 'Review code',
        arguments: [{ name: 'code', description: 'The code to review', required: true }, { name: 'style' }],
      },
      { name: 'greet', arguments: [{ name: 'name', title: 'Name', required: true }] },
    ]);
  });

  it('2026-07-28: valid arguments reach the handler, invalid ones are -32602 and it never runs', async () => {
    const { server, runs } = makeServer();
    const ok = await modernResult(server, 'prompts/get', {
      name: 'review',
      arguments: { code: 'x = 1', style: 'thorough' },
    });
    expect(ok.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'thorough: x = 1' } }]);
    const bad = await modernError(server, 'prompts/get', {
      name: 'review',
      arguments: { code: 'y = 2', style: 'loud' },
    });
    expect(bad.code).toBe(-32602);
    expect(bad.message).toMatch(/^Invalid arguments for prompt review: \/style: /);
    const short = await modernError(server, 'prompts/get', { name: 'greet', arguments: { name: 'a' } });
    expect(short.code).toBe(-32602);
    expect(short.message).toMatch(/Invalid arguments for prompt greet: \/name must NOT have fewer than 2/);
    const missing = await modernError(server, 'prompts/get', { name: 'greet', arguments: {} });
    expect(missing).toMatchObject({
      code: -32602,
      message: 'Missing required argument name for prompt greet',
    });
    expect(runs).toEqual(['x = 1']);
  });

  it('2025-06-18 session: the same listing and validation', async () => {
    const { server, runs } = makeServer();
    const client = await legacyClient(server, { revision: '2025-06-18' });
    clients.push(client);
    const list = await client.connection.request('prompts/list', {});
    expect((list.prompts as Array<{ arguments: unknown }>)[1]?.arguments).toEqual([
      { name: 'name', title: 'Name', required: true },
    ]);
    const rejected = await client.connection
      .request('prompts/get', { name: 'review', arguments: { code: 'z', style: 'loud' } })
      .catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(RpcError);
    expect((rejected as RpcError).code).toBe(-32602);
    const ok = await client.connection.request('prompts/get', { name: 'review', arguments: { code: 'z' } });
    expect(ok.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'terse: z' } }]);
    expect(runs).toEqual(['z']);
    expect(client.schemaErrors).toEqual([]);
  });

  it('an update of argsSchema lists and validates by the new schema', async () => {
    const { server, review } = makeServer();
    review.update({ argsSchema: z.object({ language: z.string() }) });
    const list = await modernResult(server, 'prompts/list');
    expect((list.prompts as Array<{ arguments: unknown }>)[0]?.arguments).toEqual([
      { name: 'language', required: true },
    ]);
    const missing = await modernError(server, 'prompts/get', { name: 'review', arguments: { code: 'x' } });
    expect(missing.message).toBe('Missing required argument language for prompt review');
  });

  it('an update with an argsSchema that does not compile throws, and the prompt keeps its schema', async () => {
    const { server, review } = makeServer();
    expect(() => review.update({ argsSchema: { type: 'string' } })).toThrow(/must have type "object"/);
    review.update({ description: 'Review code, kindly' });
    const list = await modernResult(server, 'prompts/list');
    expect((list.prompts as Array<Record<string, unknown>>)[0]).toMatchObject({
      description: 'Review code, kindly',
      arguments: [{ name: 'code', description: 'The code to review', required: true }, { name: 'style' }],
    });
  });

  it('refuses an argsSchema that is not an object schema at registration', () => {
    const server = new McpServer({ name: 'prompts', version: '1' });
    expect(() =>
      server.registerPrompt('bad', { argsSchema: { type: 'string' } }, () => ({ messages: [] })),
    ).toThrow(/must have type "object"/);
  });
});
