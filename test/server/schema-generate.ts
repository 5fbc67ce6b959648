/**
 * Seeded generators of everyday-subset schemas and of instances for them (valid ones, near misses and
 * hostile edge cases), for the differential test against ajv. `random(seed)` makes every run reproducible.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = boolean | Record<string, unknown>;

export interface Random {
  (): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: small, fast, and the same sequence on every platform. */
export function random(seed: number): Random {
  let state = seed >>> 0;
  const next = (() => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }) as Random;
  next.int = (n) => Math.floor(next() * n);
  next.pick = (items) => items[next.int(items.length)] as (typeof items)[number];
  next.chance = (p) => next() < p;
  return next;
}

const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;
/** Member names that trip naive implementations: inherited names, pointer escapes, index-like keys. */
export const NAMES = [
  'a',
  'b',
  'c',
  'text',
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'a/b',
  'x~y',
  '',
  '0',
  '10',
];
const NUMBERS = [
  0,
  -0,
  1,
  1.0,
  -1,
  1.5,
  2,
  3,
  0.1,
  0.3,
  0.1 * 3,
  7.5,
  10,
  100,
  1e21,
  1e308,
  -1e308,
  5e-324,
  2 ** 53,
];
const STRINGS = [
  '',
  'a',
  'ab',
  'abc',
  'abcd',
  '😀',
  'a😀',
  '😀😀b',
  '\ud83d',
  'x\ude00',
  'é',
  'Ab1',
  '__proto__',
  'constructor',
  'fast',
  'safe',
];
const PATTERNS = ['^a', 'b$', '^\\p{L}+$', '😀', '^.$', '^[a-z]*$', '\\d', '^.{2}$', 'a|b', '^(?:x|y)?$'];
const DIVISORS = [0.01, 0.1, 0.5, 1, 2, 3, 7.5, 1e-7];

function scalar(rng: Random): Json {
  switch (rng.int(5)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
    case 3:
      return rng.pick(NUMBERS);
    default:
      return rng.pick(STRINGS);
  }
}

/** Any JSON value; objects are built with own members even for `__proto__` (as JSON.parse builds them). */
export function anyValue(rng: Random, depth = 0): Json {
  const kind = depth > 3 ? 0 : rng.int(6);
  if (kind === 4) return Array.from({ length: rng.int(4) }, () => anyValue(rng, depth + 1));
  if (kind === 5) {
    const entries = Array.from({ length: rng.int(4) }, () => [rng.pick(NAMES), anyValue(rng, depth + 1)]);
    return Object.fromEntries(entries) as Json;
  }
  return scalar(rng);
}

function typeKeyword(rng: Random): string | string[] | undefined {
  const roll = rng();
  if (roll < 0.25) return undefined;
  if (roll < 0.85) return rng.pick(TYPES);
  const types = [...new Set([rng.pick(TYPES), rng.pick(TYPES), rng.pick(TYPES)])];
  return types.length === 1 && rng.chance(0.5) ? (types[0] as string) : types;
}

function addNumberKeywords(rng: Random, schema: Record<string, unknown>): void {
  for (const keyword of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    if (rng.chance(0.2)) schema[keyword] = rng.pick(NUMBERS);
  }
  if (rng.chance(0.25)) schema.multipleOf = rng.pick(DIVISORS);
}

function addStringKeywords(rng: Random, schema: Record<string, unknown>): void {
  if (rng.chance(0.3)) schema.minLength = rng.int(4);
  if (rng.chance(0.3)) schema.maxLength = rng.int(4);
  if (rng.chance(0.3)) schema.pattern = rng.pick(PATTERNS);
  if (rng.chance(0.15)) schema.format = rng.pick(['email', 'date-time', 'uri', 'no-such-format']);
}

function addArrayKeywords(rng: Random, schema: Record<string, unknown>, depth: number): void {
  if (rng.chance(0.2)) schema.minItems = rng.int(3);
  if (rng.chance(0.2)) schema.maxItems = rng.int(4);
  if (rng.chance(0.5)) schema.items = subschema(rng, depth + 1);
  if (rng.chance(0.35)) schema.uniqueItems = rng.chance(0.85);
}

function addObjectKeywords(rng: Random, schema: Record<string, unknown>, depth: number): void {
  if (rng.chance(0.7)) {
    const names = [
      ...new Set(Array.from({ length: 1 + rng.int(rng.chance(0.1) ? 12 : 4) }, () => rng.pick(NAMES))),
    ];
    // Object.fromEntries defines `__proto__` as an own member, as JSON.parse does.
    schema.properties = Object.fromEntries(names.map((name) => [name, subschema(rng, depth + 1)]));
  }
  if (rng.chance(0.4))
    schema.required = [...new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.pick(NAMES)))];
  if (rng.chance(0.3)) schema.additionalProperties = rng.chance(0.6) ? false : subschema(rng, depth + 1);
  if (rng.chance(0.1)) schema.minProperties = rng.int(3);
  if (rng.chance(0.1)) schema.maxProperties = rng.int(4);
}

function addAnnotations(rng: Random, schema: Record<string, unknown>): void {
  if (rng.chance(0.3)) schema.description = 'a member';
  if (rng.chance(0.1)) schema.title = 'T';
  if (rng.chance(0.1)) schema.default = anyValue(rng);
  if (rng.chance(0.05)) schema.examples = [anyValue(rng)];
  if (rng.chance(0.05)) schema.deprecated = true;
  if (rng.chance(0.05)) schema.$comment = 'why';
}

/** A subschema of the subset; boolean schemas now and then. */
export function subschema(rng: Random, depth: number): Schema {
  if (rng.chance(0.06)) return rng.chance(0.5);
  const schema: Record<string, unknown> = {};
  const type = typeKeyword(rng);
  if (type !== undefined) schema.type = type;
  const types = type === undefined ? [...TYPES] : [type].flat();
  const has = (t: string) => types.includes(t) || rng.chance(0.1);
  if (has('number') || has('integer')) addNumberKeywords(rng, schema);
  if (has('string')) addStringKeywords(rng, schema);
  if (depth < 4 && has('array')) addArrayKeywords(rng, schema, depth);
  if (depth < 4 && has('object')) addObjectKeywords(rng, schema, depth);
  if (rng.chance(0.08)) schema.const = anyValue(rng);
  if (rng.chance(0.15)) schema.enum = Array.from({ length: 1 + rng.int(4) }, () => anyValue(rng, 2));
  addAnnotations(rng, schema);
  return schema;
}

/** An instance aimed at the schema (so most keywords are reached), then perhaps spoiled in one place. */
export function instanceFor(rng: Random, schema: Schema, depth = 0): Json {
  if (typeof schema === 'boolean' || depth > 5 || rng.chance(0.1)) return anyValue(rng, 2);
  if (schema.const !== undefined && rng.chance(0.6)) return structuredClone(schema.const) as Json;
  if (Array.isArray(schema.enum) && rng.chance(0.6)) return structuredClone(rng.pick(schema.enum)) as Json;
  const declared = schema.type === undefined ? rng.pick(TYPES) : rng.pick([schema.type].flat() as string[]);
  switch (declared) {
    case 'integer':
      return rng.pick(NUMBERS.filter((n) => Number.isInteger(n)));
    case 'number':
      return rng.pick(NUMBERS);
    case 'string':
      return rng.pick(STRINGS);
    case 'array': {
      const length = rng.int(5);
      const items = Array.from({ length }, () =>
        instanceFor(rng, (schema.items as Schema) ?? true, depth + 1),
      );
      if (length > 1 && rng.chance(0.3)) items.push(structuredClone(items[0]) as Json);
      return items;
    }
    case 'object':
      return objectFor(rng, schema, depth);
    default:
      return scalar(rng);
  }
}

function objectFor(rng: Random, schema: Record<string, unknown>, depth: number): Json {
  const entries: Array<[string, Json]> = [];
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of Object.keys(properties)) {
    if (rng.chance(0.75)) entries.push([name, instanceFor(rng, properties[name] as Schema, depth + 1)]);
  }
  for (const name of (schema.required ?? []) as string[]) {
    if (rng.chance(0.85) && !entries.some(([key]) => key === name)) entries.push([name, anyValue(rng, 3)]);
  }
  if (rng.chance(0.25)) entries.push([rng.pick(NAMES), anyValue(rng, 3)]);
  // Reorder now and then: key order decides which additional member ajv reports first.
  if (rng.chance(0.3)) entries.reverse();
  return Object.fromEntries(entries) as Json;
}

/** Replaces one node of the instance (or the whole) with another value. */
export function spoil(rng: Random, value: Json): Json {
  if (value !== null && typeof value === 'object' && rng.chance(0.7)) {
    const keys = Object.keys(value);
    if (keys.length > 0) {
      const key = rng.pick(keys);
      const copy = (Array.isArray(value) ? [...value] : Object.fromEntries(Object.entries(value))) as Record<
        string,
        Json
      >;
      copy[key] = spoil(rng, copy[key] as Json);
      return copy as Json;
    }
  }
  return anyValue(rng, 2);
}
