/** Type tests for FromJsonSchema, the JSON Schema literal mapper (checked by tsc; see tool-args.test-d.ts). */
import { describe, expectTypeOf, it } from 'vitest';
import type { FromJsonSchema } from '../../src/mcp/index.js';

describe('FromJsonSchema keywords', () => {
  it('scalar types', () => {
    expectTypeOf<FromJsonSchema<{ type: 'string' }>>().toEqualTypeOf<string>();
    expectTypeOf<FromJsonSchema<{ type: 'number' }>>().toEqualTypeOf<number>();
    expectTypeOf<FromJsonSchema<{ type: 'integer' }>>().toEqualTypeOf<number>();
    expectTypeOf<FromJsonSchema<{ type: 'boolean' }>>().toEqualTypeOf<boolean>();
    expectTypeOf<FromJsonSchema<{ type: 'null' }>>().toEqualTypeOf<null>();
  });

  it('nullable through a type array', () => {
    const schema = { type: ['string', 'null'] } as const;
    expectTypeOf<FromJsonSchema<typeof schema>>().toEqualTypeOf<string | null>();
  });

  it('enum and const', () => {
    const units = { type: 'string', enum: ['c', 'f'] } as const;
    expectTypeOf<FromJsonSchema<typeof units>>().toEqualTypeOf<'c' | 'f'>();
    expectTypeOf<FromJsonSchema<{ const: 42 }>>().toEqualTypeOf<42>();
  });

  it('arrays with and without items', () => {
    const tags = { type: 'array', items: { type: 'string' } } as const;
    expectTypeOf<FromJsonSchema<typeof tags>>().toEqualTypeOf<string[]>();
    expectTypeOf<FromJsonSchema<{ type: 'array' }>>().toEqualTypeOf<unknown[]>();
  });

  it('anyOf and oneOf join their options', () => {
    const id = { anyOf: [{ type: 'string' }, { type: 'integer' }] } as const;
    expectTypeOf<FromJsonSchema<typeof id>>().toEqualTypeOf<string | number>();
    const shape = {
      oneOf: [
        {
          type: 'object',
          properties: { kind: { const: 'circle' }, r: { type: 'number' } },
          required: ['kind', 'r'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { kind: { const: 'square' }, side: { type: 'number' } },
          required: ['kind', 'side'],
          additionalProperties: false,
        },
      ],
    } as const;
    expectTypeOf<FromJsonSchema<typeof shape>>().toEqualTypeOf<
      { kind: 'circle'; r: number } | { kind: 'square'; side: number }
    >();
  });

  it('nested objects, required names without a property schema', () => {
    const schema = {
      type: 'object',
      properties: {
        address: {
          type: 'object',
          properties: { zip: { type: 'string' } },
          required: ['zip'],
          additionalProperties: false,
        },
      },
      required: ['address', 'extra'],
      additionalProperties: false,
    } as const;
    expectTypeOf<FromJsonSchema<typeof schema>>().toEqualTypeOf<{
      address: { zip: string };
      extra: unknown;
    }>();
  });

  it('booleans schemas, unknown keywords and non-literals', () => {
    expectTypeOf<FromJsonSchema<true>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromJsonSchema<false>>().toEqualTypeOf<never>();
    expectTypeOf<FromJsonSchema<{ $ref: '#/$defs/x' }>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromJsonSchema<Record<string, unknown>>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromJsonSchema<{ type: string }>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromJsonSchema<{ type: 'object'; additionalProperties: false }>>().toEqualTypeOf<
      Record<string, never>
    >();
  });

  it('nesting beyond the depth budget falls back to unknown, not any', () => {
    type Nest<T, N extends unknown[] = []> = N['length'] extends 12
      ? T
      : Nest<{ type: 'array'; items: T }, [...N, unknown]>;
    type Deep = FromJsonSchema<Nest<{ type: 'string' }>>;
    expectTypeOf<Deep>().not.toBeAny();
    type Leaf<T> = T extends Array<infer Item> ? Leaf<Item> : T;
    expectTypeOf<Leaf<Deep>>().toEqualTypeOf<unknown>();
  });
});
