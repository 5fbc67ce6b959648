import { describe, expect, it } from 'vitest';
import { toGeminiSchema, toStrictSchema } from '../../src/providers/index.js';

describe('toGeminiSchema', () => {
  it('inlines $ref/$defs, drops $schema and additionalProperties, turns type arrays into nullable', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
      },
      properties: {
        home: { $ref: '#/$defs/address', description: 'Where they live' },
        nickname: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
      },
      required: ['home', 'ghost'],
      additionalProperties: false,
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        home: {
          type: 'object',
          properties: { street: { type: 'string' } },
          required: ['street'],
          description: 'Where they live',
        },
        nickname: { type: 'string', nullable: true },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
      },
      required: ['home'], // names of missing properties are dropped, as Gemini refuses them
    });
  });

  it('maps const to a one-value enum and describes what it cannot express', () => {
    const schema = {
      type: 'object',
      properties: {
        kind: { const: 'refund' },
        level: { type: 'integer', enum: [1, 2, 3] },
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
        price: { type: 'number', exclusiveMinimum: 0 },
        extra: { type: 'object', additionalProperties: { type: 'number' } },
      },
    };
    expect(toGeminiSchema(schema)?.properties).toEqual({
      kind: { type: 'string', enum: ['refund'] },
      level: { type: 'integer', description: '(one of: 1, 2, 3)' },
      email: { type: 'string', description: '(format: email)' },
      when: { type: 'string', format: 'date-time' },
      price: { type: 'number', description: '(must be > 0)' },
      extra: { type: 'object', description: '(extra keys: {"type":"number"})' },
    });
  });

  it('turns oneOf/anyOf with null into nullable, keeps real alternatives as anyOf, merges allOf', () => {
    const schema = {
      type: 'object',
      properties: {
        maybe: { anyOf: [{ type: 'string', description: 'an id' }, { type: 'null' }] },
        either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'number' } }, required: ['b'] },
          ],
        },
        multi: { type: ['string', 'number'] },
      },
    };
    expect(toGeminiSchema(schema)?.properties).toEqual({
      maybe: { type: 'string', description: 'an id', nullable: true },
      either: {
        anyOf: [{ type: 'string' }, { type: 'integer' }],
        description: '(exactly one of the alternatives)',
      },
      both: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      multi: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    });
  });

  it('cuts recursive references at a bounded depth and keeps the meaning in words', () => {
    const schema = {
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
      properties: { root: { $ref: '#/$defs/node' } },
    };
    let node: any = toGeminiSchema(schema)?.properties;
    let depth = 0;
    while (node?.root ?? node?.child) {
      node = (node.root ?? node.child).properties ?? node.root ?? node.child;
      depth++;
      if (node.description) break;
    }
    expect(depth).toBeGreaterThan(2);
    expect(depth).toBeLessThan(10);
    expect(JSON.stringify(toGeminiSchema(schema))).toContain('recursive #/$defs/node');
  });

  it('omits parameters for a tool without any', () => {
    expect(toGeminiSchema({ type: 'object', properties: {} })).toBeUndefined();
  });
});

describe('toStrictSchema', () => {
  it('closes nested objects and makes optional properties nullable without changing required ones', () => {
    const schema = {
      type: 'object',
      properties: {
        order: {
          type: 'object',
          properties: { id: { type: 'string' }, note: { type: 'string', minLength: 3 } },
          required: ['id'],
        },
        count: { type: ['integer', 'null'] },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      },
      required: ['order'],
    };
    expect(toStrictSchema(schema)).toEqual({
      type: 'object',
      properties: {
        order: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            note: { type: ['string', 'null'], description: '(minLength: 3)' },
          },
          required: ['id', 'note'],
          additionalProperties: false,
        },
        count: { type: ['integer', 'null'] },
        items: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            properties: { sku: { type: ['string', 'null'] } },
            required: ['sku'],
            additionalProperties: false,
          },
        },
      },
      required: ['order', 'count', 'items'],
      additionalProperties: false,
    });
  });

  it('keeps $defs strict too and turns oneOf into anyOf', () => {
    const schema = {
      type: 'object',
      $defs: { money: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
      properties: { price: { $ref: '#/$defs/money' }, mode: { oneOf: [{ const: 'a' }, { const: 'b' }] } },
      required: ['price', 'mode'],
    };
    expect(toStrictSchema(schema)).toEqual({
      type: 'object',
      $defs: {
        money: {
          type: 'object',
          properties: { amount: { type: 'number' } },
          required: ['amount'],
          additionalProperties: false,
        },
      },
      properties: { price: { $ref: '#/$defs/money' }, mode: { anyOf: [{ const: 'a' }, { const: 'b' }] } },
      required: ['price', 'mode'],
      additionalProperties: false,
    });
  });

  it('declines what strict mode cannot say', () => {
    expect(
      toStrictSchema({ type: 'object', additionalProperties: { type: 'string' }, properties: {} }),
    ).toBeUndefined();
    expect(toStrictSchema({ type: 'object', properties: { free: { type: 'object' } } })).toBeUndefined();
    expect(
      toStrictSchema({ type: 'object', properties: { x: { allOf: [{ type: 'string' }] } } }),
    ).toBeUndefined();
    expect(toStrictSchema({ type: 'array' })).toBeUndefined();
  });
});
