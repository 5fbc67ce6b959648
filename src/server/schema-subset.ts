import deepEqual from 'fast-deep-equal';
import { isRecord } from '../util/record.js';
/**
 * A fast proof that a JSON Schema is valid against its dialect's meta-schema, for the everyday subset tool
 * schemas are written in (type, properties, required, items, enum, bounds, descriptions). Compiling the
 * 2020-12 meta-schema costs ajv about 60 ms, paid by the first registration on every server start; a schema
 * this check proves valid skips it. Anything it does not recognise (another keyword, an odd value) answers
 * false, and the caller asks ajv: this check never rejects a schema, it only vouches for simple ones.
 * The constraints below are the strictest of draft-07, 2019-09 and 2020-12 (draft-07 alone wants a non-empty
 * `enum` of distinct values). A schema vouched for here is also validated without ajv (schema-validator.ts).
 */

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isCount: Check = (value) => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isAnything: Check = () => true;

function isType(value: unknown): boolean {
  if (typeof value === 'string') return SIMPLE_TYPES.has(value);
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === 'string' && SIMPLE_TYPES.has(item)) &&
    new Set(value).size === value.length
  );
}

function isUniqueStrings(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((item) => typeof item === 'string') &&
    new Set(value).size === value.length
  );
}

/** Draft-07's meta-schema wants a non-empty `enum` of distinct values (deep equality, compared as ajv does). */
const MAX_OBJECT_ENUM = 64;

function isEnum(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  if (value.every((item) => item === null || typeof item !== 'object'))
    return new Set(value).size === value.length;
  // Objects: every pair, as ajv's uniqueItems does; a long list of them is left to the meta-schema.
  if (value.length > MAX_OBJECT_ENUM) return false;
  try {
    for (let i = value.length; i--; ) for (let j = i; j--; ) if (deepEqual(value[i], value[j])) return false;
  } catch {
    return false;
  }
  return true;
}

function isSchemaMap(value: unknown, depth: number): boolean {
  if (!isRecord(value)) return false;
  for (const child of Object.values(value)) if (!isSimpleSchema(child, depth + 1)) return false;
  return true;
}

const KEYWORDS: Record<string, Check | 'schema' | 'schemas'> = {
  $schema: isString,
  $comment: isString,
  title: isString,
  description: isString,
  type: isType,
  enum: isEnum,
  const: isAnything,
  default: isAnything,
  examples: Array.isArray,
  format: isString,
  pattern: isString,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
  uniqueItems: isBoolean,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  deprecated: isBoolean,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  multipleOf: (value) => isNumber(value) && (value as number) > 0,
  required: isUniqueStrings,
  properties: 'schemas',
  items: 'schema',
  additionalProperties: 'schema',
};

/** True only when the schema is provably valid; false means "ask the meta-schema". */
export function isSimpleSchema(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isRecord(schema) || depth > 32) return false;
  for (const [keyword, value] of Object.entries(schema)) {
    const check = Object.hasOwn(KEYWORDS, keyword) ? KEYWORDS[keyword] : undefined;
    if (check === undefined) return false;
    if (check === 'schema') {
      if (!isSimpleSchema(value, depth + 1)) return false;
    } else if (check === 'schemas') {
      if (!isSchemaMap(value, depth)) return false;
    } else if (!check(value)) return false;
  }
  return true;
}
