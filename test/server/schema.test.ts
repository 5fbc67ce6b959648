/** Tool schemas: JSON Schema dialects, Standard Schema (zod 4), $ref confinement, depth bounds. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '../../src/server/index.js';
import { MAX_SCHEMA_DEPTH, compileSchema } from '../../src/server/schema.js';
import { modernResult } from './support.js';

function call(server: McpServer, name: string, args: unknown) {
  return modernResult(server, 'tools/call', { name, arguments: args });
}

function errorText(result: Record<string, unknown>): string {
  return result.isError === true ? JSON.stringify(result.content) : '';
}

describe('JSON Schema dialects', () => {
  it('validates 2020-12 by default, including $defs references and conditionals', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool(
      'contact',
      {
        inputSchema: {
          type: 'object',
          $defs: { phone: { type: 'string', pattern: '^\\+[0-9]+$' } },
          properties: { method: { enum: ['phone', 'email'] }, phone: { $ref: '#/$defs/phone' } },
          if: { properties: { method: { const: 'phone' } } },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema if/then, not a thenable.
          then: { required: ['phone'] },
        },
      },
      () => ({ content: [] }),
    );
    expect(errorText(await call(server, 'contact', { method: 'phone', phone: '+123' }))).toBe('');
    expect(errorText(await call(server, 'contact', { method: 'phone' }))).toMatch(
      /must have required property 'phone'/,
    );
    expect(errorText(await call(server, 'contact', { method: 'phone', phone: 'abc' }))).toMatch(
      /\/phone must match pattern/,
    );
  });

  it('uses draft-07 semantics when $schema says so', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool(
      'legacy',
      {
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          definitions: { n: { type: 'integer' } },
          properties: {
            list: { type: 'array', items: [{ $ref: '#/definitions/n' }], additionalItems: false },
          },
        },
      },
      () => ({ content: [] }),
    );
    expect(errorText(await call(server, 'legacy', { list: [1] }))).toBe('');
    // draft-07 tuple `items` with additionalItems:false rejects a second element.
    expect(errorText(await call(server, 'legacy', { list: [1, 2] }))).toMatch(
      /must NOT have more than 1 items/,
    );
  });

  it('refuses at registration what it cannot compile safely', () => {
    const server = new McpServer({ name: 's', version: '1' });
    const register = (inputSchema: Record<string, unknown>) => () =>
      server.registerTool(`t${Math.random()}`.replace('.', ''), { inputSchema }, () => ({ content: [] }));
    expect(
      register({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } }),
    ).toThrow(/invalid JSON Schema/);
    expect(register({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })).toThrow(
      /invalid JSON Schema/,
    );
    expect(register({ $schema: 'https://example.com/my-dialect', type: 'object' })).toThrow(
      /unsupported JSON Schema dialect/,
    );
    expect(register({ type: 'array' })).toThrow(/type "object"/);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH; i++) deep = { allOf: [deep] };
    expect(register({ type: 'object', properties: { a: deep } })).toThrow(/nesting exceeds/);
  });

  it('resolves $anchor and embedded $id references without fetching anything', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool(
      'refs',
      {
        inputSchema: {
          type: 'object',
          $defs: {
            code: { $anchor: 'code', type: 'string', pattern: '^[A-Z]{3}$' },
            money: { $id: 'urn:example:money', type: 'object', properties: { amount: { type: 'number' } } },
          },
          properties: { currency: { $ref: '#code' }, price: { $ref: 'urn:example:money' } },
        },
      },
      () => ({ content: [{ type: 'text', text: 'ok' }] }),
    );
    expect(errorText(await call(server, 'refs', { currency: 'EUR', price: { amount: 3 } }))).toBe('');
    expect(errorText(await call(server, 'refs', { currency: 'euro' }))).toMatch(
      /\/currency must match pattern/,
    );
    expect(errorText(await call(server, 'refs', { price: { amount: 'x' } }))).toMatch(
      /\/price\/amount must be number/,
    );
  });

  it('never fetches a $ref, $dynamicRef or $schema that names a URL, even one that would answer', async () => {
    const hits: string[] = [];
    const remote = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/schema+json' });
      res.end(JSON.stringify({ $id: `http://127.0.0.1/${req.url}`, type: 'string' }));
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    try {
      const server = new McpServer({ name: 's', version: '1' });
      const refused = [
        { type: 'object', properties: { a: { $ref: `${base}/a.json` } } },
        { type: 'object', properties: { a: { $dynamicRef: `${base}/a.json#meta` } } },
        { $id: `${base}/root.json`, type: 'object', properties: { a: { $ref: 'sibling.json' } } },
        { $schema: `${base}/draft/2020-12/schema`, type: 'object' },
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { a: { $ref: `${base}/b` } },
        },
      ];
      for (const [index, inputSchema] of refused.entries()) {
        expect(
          () => server.registerTool(`refused${index}`, { inputSchema }, () => ({ content: [] })),
          index.toString(),
        ).toThrow(/never fetched|unsupported JSON Schema dialect/);
        expect(() =>
          server.registerTool(`out${index}`, { outputSchema: inputSchema }, () => ({
            content: [],
            isError: true,
          })),
        ).toThrow();
      }
      // Accepted: a reference to the schema's own $id, and a URL-shaped $ref inside instance data.
      server.registerTool(
        'own_id',
        {
          inputSchema: {
            $id: `${base}/root.json`,
            type: 'object',
            $defs: { code: { type: 'string', default: { $ref: `${base}/data.json` } } },
            properties: {
              code: { $ref: `${base}/root.json#/$defs/code` },
              default: { $ref: '#/$defs/code' },
            },
          },
        },
        () => ({ content: [{ type: 'text', text: 'ok' }] }),
      );
      expect(errorText(await call(server, 'own_id', { code: 'x', default: 'y' }))).toBe('');
      expect(errorText(await call(server, 'own_id', { code: 1 }))).toMatch(/\/code must be string/);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(hits).toEqual([]);
    } finally {
      await new Promise((resolve) => remote.close(resolve));
    }
  });

  it('survives pathological input against a recursive schema', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool(
      'tree',
      {
        inputSchema: {
          type: 'object',
          $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } },
          properties: { root: { $ref: '#/$defs/node' } },
        },
      },
      () => ({ content: [{ type: 'text', text: 'ok' }] }),
    );
    let nested: unknown[] = [];
    for (let i = 0; i < 100_000; i++) nested = [nested];
    const result = await call(server, 'tree', { root: nested });
    expect(result.isError).toBe(true);
    expect(await call(server, 'tree', { root: [[], [[]]] })).toMatchObject({ content: [{ text: 'ok' }] });
  });
});

describe('Standard Schema', () => {
  it('validates with the vendor and lists the vendor-converted JSON Schema', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool(
      'greet',
      {
        inputSchema: z.object({ name: z.string().min(2), times: z.number().int().default(1) }),
        outputSchema: z.object({ greeting: z.string() }),
      },
      ({ name, times }: { name: string; times: number }) => ({
        content: [{ type: 'text', text: 'hi' }],
        structuredContent: { greeting: `hi ${name} x${times}` },
      }),
    );
    const { tools } = (await modernResult(server, 'tools/list')) as { tools: Array<Record<string, unknown>> };
    expect(tools[0]?.inputSchema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string', minLength: 2 } },
    });
    expect(tools[0]?.outputSchema).toMatchObject({
      type: 'object',
      properties: { greeting: { type: 'string' } },
    });
    // The handler receives the vendor's parsed value (defaults applied).
    expect((await call(server, 'greet', { name: 'Ada' })).structuredContent).toEqual({
      greeting: 'hi Ada x1',
    });
    expect(errorText(await call(server, 'greet', { name: 'A' }))).toMatch(/\/name: Too small/);
  });

  it('converts to JSON Schema once, at registration, never per list', async () => {
    const schema = z.object({ q: z.string() });
    let conversions = 0;
    const standard = schema['~standard'];
    const counted = {
      '~standard': {
        ...standard,
        jsonSchema: {
          input: (options: { target: string }) => {
            conversions++;
            return standard.jsonSchema.input(options as never);
          },
        },
      },
    };
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('search', { inputSchema: counted as never }, () => ({ content: [] }));
    for (let i = 0; i < 5; i++) await modernResult(server, 'tools/list');
    expect(conversions).toBe(1);
  });

  it('refuses a Standard Schema it cannot convert', () => {
    const opaque = {
      '~standard': { version: 1, vendor: 'mystery', validate: (value: unknown) => ({ value }) },
    };
    expect(() => compileSchema(opaque as never, 'input')).toThrow(/cannot convert a mystery schema/);
  });
});
