/**
 * Each keyword of the subset validator, with the message a user reads, and the same expectation held against
 * ajv (2020-12, the default dialect, with schema.ts's options), so the table cannot drift from ajv.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS, compileSchema } from '../../src/server/schema.js';
import { isSimpleSchema } from '../../src/server/schema-subset.js';
import { compileSubsetValidator } from '../../src/server/schema-validator.js';

const ajv = new Ajv2020(AJV_OPTIONS);

/** A member name with a quote, a newline, U+2028, a backtick, a template placeholder and a backslash. */
const TEMPLATE_LIKE = `a'\n\u2028\`\${x}\`\\`;

type Case = [schema: Record<string, unknown>, instance: unknown, expected: string];

/** Builds an object from entries so `__proto__` is an own member, as JSON.parse makes it. */
const own = (entries: Array<[string, unknown]>) => Object.fromEntries(entries);

const cases: Record<string, Case[]> = {
  type: [
    [{ type: 'integer' }, 1.0, 'valid'],
    [{ type: 'integer' }, 1e308, 'valid'],
    [{ type: 'integer' }, -0, 'valid'],
    [{ type: 'integer' }, 1.5, '(root) must be integer'],
    [{ type: 'number' }, '1', '(root) must be number'],
    [{ type: ['string', 'null'] }, null, 'valid'],
    [{ type: ['string', 'null'] }, 1, '(root) must be string,null'],
    [{ type: ['array', 'object'] }, null, '(root) must be array,object'],
    [{ type: 'object' }, [], '(root) must be object'],
  ],
  'const and enum (deep equality)': [
    [{ const: { a: [1, { b: 2 }], c: null } }, { c: null, a: [1, { b: 2 }] }, 'valid'],
    [{ const: { a: 1 } }, { a: 1, b: 2 }, '(root) must be equal to constant'],
    [{ const: 0 }, -0, 'valid'],
    [{ enum: ['a', 1, null, [1, 2]] }, [1, 2], 'valid'],
    [{ enum: ['a', 1, null] }, '1', '(root) must be equal to one of the allowed values'],
    [{ enum: [{ valueOf: 1 }] }, { valueOf: 1 }, 'threw a.valueOf is not a function'],
  ],
  'number bounds and multipleOf': [
    [{ minimum: 1, maximum: 2 }, 2, 'valid'],
    [{ maximum: 2 }, 2.5, '(root) must be <= 2'],
    [{ minimum: 1 }, 0, '(root) must be >= 1'],
    [{ exclusiveMaximum: 2 }, 2, '(root) must be < 2'],
    [{ exclusiveMinimum: 0 }, 0, '(root) must be > 0'],
    [{ multipleOf: 0.5 }, 2.5, 'valid'],
    // 0.07 / 0.01 is 7.000000000000001 in binary floating point: ajv's float division, kept.
    [{ multipleOf: 0.01 }, 0.07, '(root) must be multiple of 0.01'],
    [{ multipleOf: 0.01 }, 0.5, 'valid'],
    [{ multipleOf: 0.1 }, 0.1 * 3, '(root) must be multiple of 0.1'],
    [{ multipleOf: 1 }, 1e21, '(root) must be multiple of 1'],
  ],
  'string lengths count code points; pattern is a u regex, unanchored': [
    [{ maxLength: 1 }, '😀', 'valid'],
    [{ minLength: 2 }, '😀', '(root) must NOT have fewer than 2 characters'],
    [{ maxLength: 2 }, 'a😀b', '(root) must NOT have more than 2 characters'],
    [{ minLength: 1 }, '\ud83d', 'valid'],
    [{ pattern: 'b' }, 'abc', 'valid'],
    [{ pattern: '^.$' }, '😀', 'valid'],
    [{ pattern: '^\\p{Lu}' }, 'abc', '(root) must match pattern "^\\p{Lu}"'],
    [{ type: 'string', format: 'email' }, 'not an email', 'valid'],
  ],
  'arrays: bounds, items, uniqueItems': [
    [{ minItems: 1 }, [], '(root) must NOT have fewer than 1 items'],
    [{ maxItems: 1 }, [1, 2], '(root) must NOT have more than 1 items'],
    [{ items: { type: 'integer' } }, [1, 2, 'x'], '/2 must be integer'],
    [{ items: { type: 'array', items: { type: 'string' } } }, [['a'], ['b', 3]], '/1/1 must be string'],
    [{ items: false }, [1], '/0 boolean schema is false'],
    [
      { uniqueItems: true },
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      '(root) must NOT have duplicate items (items ## 0 and 1 are identical)',
    ],
    [
      { uniqueItems: true, items: { type: 'integer' } },
      [1, 2, 1.0],
      '(root) must NOT have duplicate items (items ## 2 and 0 are identical)',
    ],
    [{ uniqueItems: true, items: { type: ['string', 'integer'] } }, ['1', 1], 'valid'],
    [{ uniqueItems: false }, [1, 1], 'valid'],
  ],
  'objects: required, properties, additionalProperties, counts': [
    [{ required: ['a', 'b'] }, { b: 1 }, "(root) must have required property 'a'"],
    [{ required: ['a'], properties: { b: { type: 'string' } } }, { a: null }, 'valid'],
    [
      { properties: { 'a/b': { properties: { '~': { type: 'null' } } } } },
      { 'a/b': { '~': 1 } },
      '/a~1b/~0 must be null',
    ],
    [{ properties: { a: false } }, { a: 1 }, '/a boolean schema is false'],
    [
      { properties: { a: true }, additionalProperties: false },
      { a: 1, b: 2 },
      "(root) must NOT have additional properties 'b'",
    ],
    [{ additionalProperties: { type: 'string' } }, { a: 'x', b: 2 }, '/b must be string'],
    [{ minProperties: 2 }, { a: 1 }, '(root) must NOT have fewer than 2 properties'],
    [{ maxProperties: 0 }, { a: 1 }, '(root) must NOT have more than 0 properties'],
    [{ type: 'object' }, own([['__proto__', 1]]), 'valid'],
    [{ properties: own([['__proto__', { type: 'string' }]]) }, own([['__proto__', 1]]), 'valid'],
  ],
  "the first failing keyword is ajv's": [
    // `type` with keywords for that type is checked at the end of its group, after const and enum.
    [{ type: 'string', minLength: 1, enum: ['a'] }, 5, '(root) must be equal to one of the allowed values'],
    [{ type: 'string', enum: ['a'] }, 5, '(root) must be string'],
    [{ type: 'string', format: 'uri', const: 'a' }, 5, '(root) must be equal to constant'],
    [{ maximum: 1, multipleOf: 2 }, 3, '(root) must be <= 1'],
    [
      { required: ['a'], properties: { b: { type: 'string' } } },
      { b: 1 },
      "(root) must have required property 'a'",
    ],
    [
      { properties: { a: { type: 'string' } }, additionalProperties: false },
      { a: 1, b: 1 },
      "(root) must NOT have additional properties 'b'",
    ],
    [{ items: { type: 'string' }, uniqueItems: true }, [1, 1], '/0 must be string'],
    [{ minItems: 3, items: { type: 'string' } }, [1], '(root) must NOT have fewer than 3 items'],
  ],
  'names and patterns are data, never code': [
    [{ required: ['"]; throw 1; //'] }, {}, `(root) must have required property '"]; throw 1; //'`],
    [
      { properties: { [TEMPLATE_LIKE]: { type: 'null' } } },
      { [TEMPLATE_LIKE]: 0 },
      `/${TEMPLATE_LIKE} must be null`,
    ],
    [{ pattern: '^"\\n$' }, 'x', '(root) must match pattern "^"\\n$"'],
    [
      { properties: { a: true }, additionalProperties: false },
      { "'); throw 1; //": 0 },
      "(root) must NOT have additional properties ''); throw 1; //'",
    ],
    [{ enum: ['"', "'", '\\'] }, '\\', 'valid'],
  ],
  "ajv's quirks, kept so the verdict never depends on which validator ran": [
    // Members are read as `data[name]`: an inherited name is present.
    [{ required: ['constructor'] }, {}, 'valid'],
    [{ properties: { constructor: { type: 'string' } } }, {}, '/constructor must be string'],
    // A required empty name is never reported missing (ajv's condition is falsy for "").
    [{ required: [''] }, {}, 'valid'],
    // Scalar items are indexed in a plain object, where `__proto__` cannot be stored.
    [{ uniqueItems: true, items: { type: 'string' } }, ['__proto__', '__proto__'], 'valid'],
    [
      { uniqueItems: true },
      ['__proto__', '__proto__'],
      '(root) must NOT have duplicate items (items ## 0 and 1 are identical)',
    ],
  ],
};

function ajvOutcome(schema: object, value: unknown): string {
  const validate = ajv.compile(schema);
  try {
    if (validate(value)) return 'valid';
    const error = validate.errors?.[0];
    const where = error?.instancePath === '' ? '(root)' : error?.instancePath;
    const extra =
      error?.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'` : '';
    return `${where} ${error?.message}${extra}`;
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

function subsetOutcome(schema: object, value: unknown): string {
  try {
    return compileSubsetValidator(schema)(value) ?? 'valid';
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

describe('subset validator keywords', () => {
  for (const [name, table] of Object.entries(cases)) {
    it(name, () => {
      for (const [schema, instance, expected] of table) {
        const label = `${JSON.stringify(schema)} on ${JSON.stringify(instance)}`;
        expect(isSimpleSchema(schema), label).toBe(true);
        expect(subsetOutcome(schema, instance), label).toBe(expected);
        expect(ajvOutcome(schema, instance), `ajv: ${label}`).toBe(expected);
      }
    });
  }
});

describe('compileSchema with an everyday schema', () => {
  const schema = {
    type: 'object',
    properties: { text: { type: 'string', maxLength: 3 } },
    required: ['text'],
    additionalProperties: false,
  };

  it('reports the message ajv would, and passes the value through', () => {
    const compiled = compileSchema(schema, 'input');
    expect(compiled.validate({ text: 'abc' })).toEqual({ ok: true, value: { text: 'abc' } });
    expect(compiled.validate({ text: 'abcd' })).toEqual({
      ok: false,
      message: '/text must NOT have more than 3 characters',
    });
    expect(compiled.validate({})).toEqual({
      ok: false,
      message: "(root) must have required property 'text'",
    });
  });

  it('turns an invalid pattern into a failed validation, as ajv did', () => {
    const compiled = compileSchema(
      { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
      'input',
    );
    const outcome = compiled.validate({ a: 'x' });
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { message: string }).message).toMatch(
      /^could not be validated \(Invalid regular expression/,
    );
  });

  it('fails, not throws, on a hostile instance that exhausts the stack', () => {
    const compiled = compileSchema({ type: 'object', properties: { a: { uniqueItems: true } } }, 'input');
    let deep: unknown = [];
    let twin: unknown = [];
    for (let i = 0; i < 200_000; i++) {
      deep = [deep];
      twin = [twin];
    }
    const outcome = compiled.validate({ a: [deep, twin] });
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { message: string }).message).toMatch(/^could not be validated/);
  });
});
