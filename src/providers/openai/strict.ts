import { isRecord, type JsonSchema, joinDescription } from '../shared/tools.js';

/**
 * Keywords OpenAI structured outputs reject; their meaning moves into the description instead
 * (platform.openai.com/docs/guides/structured-outputs: Supported schemas).
 */
const DESCRIBED = ['minLength', 'maxLength', 'minProperties', 'maxProperties', 'uniqueItems', 'default'];
const DROPPED = ['$schema', '$id', '$comment', 'examples', 'title'];

/**
 * Rewrites a tool schema for OpenAI strict mode: every object closes (`additionalProperties: false`) and
 * lists all its properties as required, and properties that were optional become nullable so the model
 * can still leave them out (it sends null). Returns undefined when strict mode cannot say what the schema
 * says (open maps, free-form objects, `allOf`, `not`, non-object root); the caller then sends the tool
 * without `strict`, which keeps its meaning.
 */
export function toStrictSchema(schema: Readonly<JsonSchema>): JsonSchema | undefined {
  if (schema.type !== undefined && schema.type !== 'object') return undefined;
  try {
    return strictNode({ type: 'object', ...schema }) as JsonSchema;
  } catch (error) {
    if (error instanceof NotStrict) return undefined;
    throw error;
  }
}

class NotStrict extends Error {}

function strictNode(node: unknown): unknown {
  if (!isRecord(node)) return node;
  if ('allOf' in node || 'not' in node || 'if' in node || 'patternProperties' in node) throw new NotStrict();
  const out: JsonSchema = {};
  let extra = '';
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.includes(key)) continue;
    if (DESCRIBED.includes(key)) {
      extra += ` (${key}: ${JSON.stringify(value)})`;
      continue;
    }
    if (key === 'oneOf' || key === 'anyOf') out.anyOf = (value as unknown[]).map(strictNode);
    else if (key === 'items' || key === 'additionalProperties') out[key] = strictNode(value);
    else if (key === '$defs' || key === 'definitions') out[key] = mapValues(value, strictNode);
    else if (key === 'properties') out[key] = mapValues(value, strictNode);
    else out[key] = value;
  }
  if (extra) out.description = joinDescription(out.description, extra.trim());
  if (isObjectType(out)) closeObject(out);
  return out;
}

function isObjectType(node: JsonSchema): boolean {
  return node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
}

function closeObject(node: JsonSchema): void {
  const extra = node.additionalProperties;
  if (extra !== undefined && extra !== false) throw new NotStrict(); // a map has no fixed keys
  const properties = node.properties;
  if (!isRecord(properties)) throw new NotStrict(); // a free-form object has no fixed keys either
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const closed: JsonSchema = {};
  for (const [name, property] of Object.entries(properties)) {
    closed[name] = required.has(name) ? property : nullable(property);
  }
  node.properties = closed;
  node.required = Object.keys(closed);
  node.additionalProperties = false;
}

/** An optional property the model may now answer with null. */
function nullable(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  if (typeof schema.type === 'string' && schema.enum === undefined) {
    return schema.type === 'null' ? schema : { ...schema, type: [schema.type, 'null'] };
  }
  if (Array.isArray(schema.type) && schema.enum === undefined) {
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  }
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((branch) => isRecord(branch) && branch.type === 'null');
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  const { description, ...rest } = schema;
  return {
    anyOf: [rest, { type: 'null' }],
    ...(description === undefined ? {} : { description }),
  };
}

function mapValues(value: unknown, fn: (item: unknown) => unknown): unknown {
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fn(item)]));
}
