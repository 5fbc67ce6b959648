import { Ajv as Ajv07 } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { isSimpleSchema } from '../../src/server/schema-subset.js';

const dialects = [
  new Ajv2020({ strict: false }),
  new Ajv2019({ strict: false }),
  new Ajv07({ strict: false }),
];

const vouched = [
  { type: 'object' },
  {
    type: 'object',
    properties: { text: { type: 'string', description: 'what to echo' } },
    required: ['text'],
  },
  {
    type: 'object',
    properties: {
      user: {
        type: 'object',
        properties: {
          email: { type: 'string', pattern: '^[^@]+@[^@]+$' },
          age: { type: 'integer', minimum: 0 },
        },
        required: ['email'],
        additionalProperties: false,
      },
      tags: { type: 'array', items: { type: 'string', maxLength: 32 }, maxItems: 16, uniqueItems: true },
      mode: { enum: ['fast', 'safe'], default: 'fast' },
      qty: { type: ['number', 'null'], exclusiveMinimum: 0, multipleOf: 0.5 },
    },
  },
  { type: 'object', properties: { anything: true, nothing: false } },
];

const refused = [
  { type: 'strin' },
  { type: ['string', 'string'] },
  { type: [] },
  { type: 'object', required: 'text' },
  { type: 'object', required: ['a', 'a'] },
  { type: 'object', properties: { a: { minLength: -1 } } },
  { type: 'object', properties: { a: { minLength: 1.5 } } },
  { type: 'object', properties: { a: { multipleOf: 0 } } },
  { type: 'object', properties: [] },
  { type: 'object', additionalProperties: 'no' },
  { type: 'object', properties: { a: { maximum: '3' } } },
  // draft-07's meta-schema wants a non-empty enum of distinct values.
  { type: 'object', properties: { a: { enum: [] } } },
  { type: 'object', properties: { a: { enum: [1, 1] } } },
  { type: 'object', properties: { a: { enum: [{ b: [1] }, { b: [1] }] } } },
];

describe('isSimpleSchema: vouches only for schemas every dialect accepts', () => {
  it('vouches for everyday tool schemas, and the meta-schemas agree', () => {
    for (const schema of vouched) {
      expect(isSimpleSchema(schema)).toBe(true);
      for (const ajv of dialects) expect(ajv.validateSchema(schema)).toBe(true);
    }
  });

  it('never vouches for a schema a meta-schema rejects', () => {
    for (const schema of refused) {
      expect(isSimpleSchema(schema)).toBe(false);
      expect(dialects.some((ajv) => ajv.validateSchema(schema) === false)).toBe(true);
    }
  });

  it('leaves keywords it does not know to the meta-schema', () => {
    expect(isSimpleSchema({ type: 'object', $defs: { a: { type: 'string' } } })).toBe(false);
    expect(isSimpleSchema({ type: 'object', properties: { a: { $ref: '#/$defs/a' } } })).toBe(false);
    expect(isSimpleSchema({ type: 'object', oneOf: [{ required: ['a'] }] })).toBe(false);
    expect(isSimpleSchema({ type: 'object', toString: 'x' })).toBe(false);
  });
});
