/**
 * The keyword code of the subset validator, one group per instance type, each in ajv's order within its group
 * (ajv 8's rule table, the same in draft-07, 2019-09 and 2020-12) and with ajv's messages. A group's code runs
 * only on an instance of the group's type (schema-validator.ts tests the type first). Each function returns
 * statements that `return` the failure text, or '' when the schema has nothing to check there.
 */
import deepEqual from 'fast-deep-equal';
import { type Codegen, type Path, child, fail, literal, typesOf } from './schema-codegen.js';
import {
  TYPE_TESTS,
  codePointLength,
  duplicatePairs,
  duplicateScalars,
  pointerSegment,
} from './schema-runtime.js';

type Schema = Record<string, unknown>;
/** Code validating `value` (a variable name) against `schema` at `path`. */
export type CompileNode = (schema: unknown, value: string, path: Path) => string;

export const GROUP_KEYWORDS = {
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'format'],
  string: ['maxLength', 'minLength', 'pattern', 'format'],
  array: ['maxItems', 'minItems', 'items', 'uniqueItems'],
  object: ['maxProperties', 'minProperties', 'required', 'additionalProperties', 'properties'],
} as const;

/** ajv's bounds: the failing comparison, and NaN failing every bound. */
const BOUNDS = [
  ['maximum', '>', '<='],
  ['minimum', '<', '>='],
  ['exclusiveMaximum', '>=', '<'],
  ['exclusiveMinimum', '<=', '>'],
] as const;

export function numberCode(schema: Schema, v: string, path: Path): string {
  const code: string[] = [];
  for (const [keyword, failing, ok] of BOUNDS) {
    const limit = schema[keyword];
    if (typeof limit !== 'number') continue;
    code.push(
      `if (${v} ${failing} ${literal(limit)} || Number.isNaN(${v})) ${fail(path, { text: `must be ${ok} ${limit}` })}`,
    );
  }
  const divisor = schema.multipleOf;
  if (typeof divisor === 'number') {
    // ajv's test, parseInt's string conversion included (1e21 / 1 is not "a multiple" there either).
    code.push(
      `{ const q = ${v} / ${literal(divisor)}; if (q !== parseInt(q)) ${fail(path, { text: `must be multiple of ${divisor}` })} }`,
    );
  }
  return code.join('\n');
}

function lengthCode(limit: unknown, more: boolean, length: string, unit: string, path: Path): string {
  if (typeof limit !== 'number') return '';
  const message = `must NOT have ${more ? 'more' : 'fewer'} than ${limit} ${unit}`;
  return `if (${length} ${more ? '>' : '<'} ${literal(limit)}) ${fail(path, { text: message })}`;
}

export function stringCode(gen: Codegen, schema: Schema, v: string, path: Path): string {
  const code: string[] = [];
  if (schema.maxLength !== undefined || schema.minLength !== undefined) {
    const length = gen.local('n');
    code.push(`const ${length} = ${gen.ref(codePointLength)}(${v});`);
    code.push(lengthCode(schema.maxLength, true, length, 'characters', path));
    code.push(lengthCode(schema.minLength, false, length, 'characters', path));
  }
  if (typeof schema.pattern === 'string') {
    // ajv: a `u` regular expression, unanchored; an invalid one throws here as it throws in ajv's compile.
    const regex = gen.ref(new RegExp(schema.pattern, 'u'));
    code.push(`if (!${regex}.test(${v})) ${fail(path, { text: `must match pattern "${schema.pattern}"` })}`);
  }
  return code.join('\n');
}

export function arrayCode(gen: Codegen, schema: Schema, v: string, path: Path, node: CompileNode): string {
  const code = [
    lengthCode(schema.maxItems, true, `${v}.length`, 'items', path),
    lengthCode(schema.minItems, false, `${v}.length`, 'items', path),
  ];
  const index = gen.local('i');
  const item = gen.local('d');
  const itemCode = node(schema.items, item, child(path, { code: index }));
  if (itemCode !== '') {
    code.push(
      `for (let ${index} = 0; ${index} < ${v}.length; ${index}++) {\nconst ${item} = ${v}[${index}];\n${itemCode}\n}`,
    );
  }
  if (schema.uniqueItems === true) {
    const found = gen.local('u');
    code.push(`const ${found} = ${duplicateCall(gen, schema.items, v)};`);
    code.push(
      `if (${found} !== undefined) ${fail(path, { text: 'must NOT have duplicate items (items ## ' }, { code: found }, { text: ' are identical)' })}`,
    );
  }
  return code.filter((line) => line !== '').join('\n');
}

/** ajv picks its loop by the types `items` declares: scalar types only, or anything else. */
function duplicateCall(gen: Codegen, items: unknown, v: string): string {
  const itemTypes = typesOf(items);
  if (itemTypes.length > 0 && itemTypes.every((type) => Object.hasOwn(TYPE_TESTS, type))) {
    const tests = gen.ref(itemTypes.map((type) => TYPE_TESTS[type]));
    return `${gen.ref(duplicateScalars)}(${v}, ${tests}, ${itemTypes.length > 1})`;
  }
  return `${gen.ref(duplicatePairs)}(${v})`;
}

/** ajv ignores a property named `__proto__` in `properties` (and so counts it as additional, up to 8 names). */
function propertyNames(properties: unknown): string[] {
  return typeof properties === 'object' && properties !== null
    ? Object.keys(properties).filter((name) => name !== '__proto__')
    : [];
}

/** From this many names ajv loops over `required` instead of writing one condition per name. */
const REQUIRED_LOOP = 200;

export function objectCode(gen: Codegen, schema: Schema, v: string, path: Path, node: CompileNode): string {
  const code: string[] = [];
  if (schema.maxProperties !== undefined || schema.minProperties !== undefined) {
    const count = gen.local('n');
    code.push(`const ${count} = Object.keys(${v}).length;`);
    code.push(lengthCode(schema.maxProperties, true, count, 'properties', path));
    code.push(lengthCode(schema.minProperties, false, count, 'properties', path));
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  // ajv's condition per name is `data[name] === undefined && (missing = name)`, falsy for "": below the loop
  // size a required empty name is never reported missing. Kept, so a verdict never depends on which
  // validator ran. Members are read as ajv reads them, so an inherited name (`constructor`) is present.
  for (const name of required.length >= REQUIRED_LOOP ? required : required.filter((name) => name !== '')) {
    code.push(
      `if (${v}[${JSON.stringify(name)}] === undefined) ${fail(path, { text: `must have required property '${name}'` })}`,
    );
  }
  code.push(additionalCode(gen, schema, v, path, node));
  const properties = schema.properties as Schema | undefined;
  for (const name of propertyNames(properties)) {
    const member = gen.local('d');
    const memberCode = node(
      (properties as Schema)[name],
      member,
      child(path, { text: pointerSegment(name) }),
    );
    if (memberCode === '') continue;
    code.push(
      `{ const ${member} = ${v}[${JSON.stringify(name)}];\nif (${member} !== undefined) {\n${memberCode}\n} }`,
    );
  }
  return code.filter((line) => line !== '').join('\n');
}

function additionalCode(gen: Codegen, schema: Schema, v: string, path: Path, node: CompileNode): string {
  const extra = schema.additionalProperties;
  if (extra === undefined) return '';
  const key = gen.local('k');
  const member = gen.local('d');
  const memberCode =
    extra === false ? '' : node(extra, member, child(path, { code: `${gen.ref(pointerSegment)}(${key})` }));
  if (extra !== false && memberCode === '') return '';
  const names = propertyNames(schema.properties);
  // ajv's test: an own member of `properties` beyond 8 names, a comparison with each name up to 8.
  const declared =
    names.length > 8
      ? `Object.hasOwn(${gen.ref(schema.properties)}, ${key})`
      : names.map((name) => `${key} === ${JSON.stringify(name)}`).join(' || ');
  const check =
    extra === false
      ? fail(path, { text: 'must NOT have additional properties ' }, { code: `"'" + ${key} + "'"` })
      : `const ${member} = ${v}[${key}];\n${memberCode}`;
  return `for (const ${key} in ${v}) {\n${declared === '' ? '' : `if (${declared}) continue;\n`}${check}\n}`;
}

/** A JSON scalar written into the code (strings through JSON.stringify), anything else by reference. */
function scalar(gen: Codegen, value: unknown): string {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return literal(value);
  return gen.ref(value);
}

/** `const`: deepEqual for an object, `===` for a scalar (ajv's two forms). */
export function constCode(gen: Codegen, value: unknown, v: string, path: Path): string {
  if (value === undefined) return '';
  const message = fail(path, { text: 'must be equal to constant' });
  if (value !== null && typeof value === 'object')
    return `if (!${gen.ref(deepEqual)}(${v}, ${gen.ref(value)})) ${message}`;
  return `if (${scalar(gen, value)} !== ${v}) ${message}`;
}

/** ajv compares an object member with deepEqual and a scalar with `===`, all of them with deepEqual from 200 on. */
const ENUM_LOOP = 200;

export function enumCode(gen: Codegen, values: unknown, v: string, path: Path): string {
  if (!Array.isArray(values)) return '';
  const message = fail(path, { text: 'must be equal to one of the allowed values' });
  const equal = gen.ref(deepEqual);
  if (values.length >= ENUM_LOOP) {
    const option = gen.local('e');
    return `if (!${gen.ref(values)}.some((${option}) => ${equal}(${v}, ${option}))) ${message}`;
  }
  const tests = values.map((value) =>
    value !== null && typeof value === 'object'
      ? `${equal}(${v}, ${gen.ref(value)})`
      : `${v} === ${scalar(gen, value)}`,
  );
  return `if (!(${tests.join(' || ')})) ${message}`;
}
