import { isRecord } from '../../util/record.js';
import { inlineRefs, type JsonSchema, joinDescription } from '../shared/tools.js';

/**
 * Gemini's `Schema` is an OpenAPI 3.0 subset (ai.google.dev/api/caching#Schema). Keywords it keeps as is;
 * `anyOf`, `properties`, `items` and `required` are rebuilt below; everything else is either dropped
 * (annotations) or described in words so the model still learns the constraint.
 */
const KEPT = [
  'description',
  'title',
  'default',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minProperties',
  'maxProperties',
  'propertyOrdering',
  'nullable',
];
/** `format` values Gemini accepts, per type; others are described instead. */
const FORMATS: Record<string, readonly string[]> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/**
 * JSON Schema -> Gemini Schema: `$ref`s inlined (bounded depth), `const` -> single-value enum,
 * `["T","null"]` and `anyOf [T, null]` -> `nullable`, `oneOf` -> `anyOf`, `allOf` merged, non-string
 * enums and unsupported formats/keywords described in the description. Returns undefined for an object
 * with no properties at the root (a function without parameters omits `parameters`).
 */
export function toGeminiSchema(schema: Readonly<JsonSchema>): JsonSchema | undefined {
  const converted = convert(inlineRefs(schema));
  const properties = converted.properties;
  if (converted.type === 'object' && (!isRecord(properties) || Object.keys(properties).length === 0)) {
    return undefined;
  }
  return converted;
}

function convert(input: JsonSchema): JsonSchema {
  const node = Array.isArray(input.allOf) ? mergeAllOf(input) : input;
  const out: JsonSchema = {};
  const notes: string[] = [];
  applyType(node, out, notes);
  for (const [key, value] of Object.entries(node)) {
    if (KEPT.includes(key)) out[key] = value;
    else if (key === 'properties' && isRecord(value)) out.properties = mapSchemas(value);
    else if (key === 'items' && isRecord(value)) out.items = convert(value);
    else if (key === 'required' && Array.isArray(value)) out.required = value;
    else if (key === 'format') applyFormat(value, out, notes);
    else if (key === 'enum' || key === 'const') applyEnum(key === 'const' ? [value] : value, out, notes);
    else if (key === 'anyOf' || key === 'oneOf') applyAnyOf(value, out, notes, key);
    else if (key === 'exclusiveMinimum' && typeof value === 'number') notes.push(`must be > ${value}`);
    else if (key === 'exclusiveMaximum' && typeof value === 'number') notes.push(`must be < ${value}`);
    else if (key === 'additionalProperties' && isRecord(value)) notes.push(`extra keys: ${brief(value)}`);
    else if (key === 'prefixItems' && Array.isArray(value)) notes.push(`tuple: ${brief(value)}`);
    else if (['multipleOf', 'uniqueItems', 'not', 'patternProperties', 'contains'].includes(key)) {
      notes.push(`${key}: ${brief(value)}`);
    }
    // Everything else ($schema, $id, examples, additionalProperties: boolean, ...) is dropped.
  }
  if (isRecord(out.properties) && Array.isArray(out.required)) {
    const names = Object.keys(out.properties);
    out.required = (out.required as unknown[]).filter((name) => names.includes(name as string));
  } else delete out.required;
  if (notes.length > 0) out.description = joinDescription(out.description, `(${notes.join('; ')})`);
  return out;
}

/** `type: [T, 'null']` -> `type: T, nullable: true`; several real types -> anyOf. */
function applyType(node: JsonSchema, out: JsonSchema, notes: string[]): void {
  const types = (
    Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]
  ) as string[];
  const real = types.filter((type) => type !== 'null');
  if (real.length < types.length) out.nullable = true;
  if (real.length === 1) out.type = real[0];
  else if (real.length > 1) out.anyOf = real.map((type) => ({ type }));
  else if (types.length > 0) {
    out.nullable = true; // `type: 'null'` alone: Gemini has no null type
    notes.push('always null');
  } else if (node.type === undefined && isRecord(node.properties)) out.type = 'object';
}

function applyFormat(format: unknown, out: JsonSchema, notes: string[]): void {
  if (typeof format !== 'string') return;
  const allowed = FORMATS[String(out.type)] ?? [];
  if (allowed.includes(format)) out.format = format;
  else notes.push(`format: ${format}`);
}

/** Gemini enums are strings only; other literal values stay in words. */
function applyEnum(values: unknown, out: JsonSchema, notes: string[]): void {
  if (!Array.isArray(values)) return;
  const nonNull = values.filter((value) => value !== null);
  if (nonNull.length < values.length) out.nullable = true;
  if (nonNull.every((value) => typeof value === 'string')) {
    out.type ??= 'string';
    out.enum = nonNull;
  } else {
    notes.push(`one of: ${nonNull.map((value) => JSON.stringify(value)).join(', ')}`);
  }
}

/** Drops `{type:'null'}` branches into `nullable`; a single remaining branch is merged into the node. */
function applyAnyOf(branches: unknown, out: JsonSchema, notes: string[], key: string): void {
  if (!Array.isArray(branches)) return;
  const kept = branches.filter((branch) => !(isRecord(branch) && branch.type === 'null'));
  if (kept.length < branches.length) out.nullable = true;
  const converted = kept.filter(isRecord).map(convert);
  if (converted.length === 1)
    Object.assign(out, converted[0], out.description ? { description: out.description } : {});
  else if (converted.length > 1) {
    out.anyOf = converted;
    if (key === 'oneOf') notes.push('exactly one of the alternatives');
  }
}

/** `allOf` of object schemas -> one object (properties and required united); other parts kept as is. */
function mergeAllOf(node: JsonSchema): JsonSchema {
  const { allOf, ...rest } = node;
  const merged: JsonSchema = { ...rest };
  for (const part of (allOf as unknown[]).filter(isRecord)) {
    const source = Array.isArray(part.allOf) ? mergeAllOf(part) : part;
    for (const [key, value] of Object.entries(source)) {
      if (key === 'properties' && isRecord(value)) {
        merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...value };
      } else if (key === 'required' && Array.isArray(value)) {
        merged.required = [...new Set([...((merged.required as unknown[]) ?? []), ...value])];
      } else if (key === 'description' && merged.description !== undefined) {
        merged.description = joinDescription(merged.description, String(value));
      } else merged[key] ??= value;
    }
  }
  return merged;
}

function mapSchemas(properties: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [name, schema] of Object.entries(properties))
    out[name] = isRecord(schema) ? convert(schema) : {};
  return out;
}

/** A compact rendering of a schema fragment for descriptions, capped so descriptions stay readable. */
function brief(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
