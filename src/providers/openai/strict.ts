import type {
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ToolCall,
  ToolDefinition,
} from '../../agent/model.js';
import { isRecord } from '../../util/record.js';
import { type JsonSchema, joinDescription, objectSchema } from '../shared/tools.js';

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

/**
 * The way back from strict mode: it made optional properties required but nullable, so the model answers
 * `null` for "not given", while the MCP server expects such a property left out (and its schema may refuse
 * null). Nulls are dropped where the tool's original schema made the property optional and does not itself
 * accept null; everything else is passed on as the model sent it.
 */
class StrictArguments {
  readonly #originals = new Map<string, JsonSchema | null>();

  /** `tools` as the request offered them; empty when strict mode is off. */
  readonly #tools: readonly ToolDefinition[];
  constructor(tools: readonly ToolDefinition[]) {
    this.#tools = tools;
  }

  call(call: ToolCall): ToolCall {
    const schema = this.#original(call.name);
    return schema ? { ...call, arguments: dropNulls(call.arguments, schema, schema, 0) as JsonRecord } : call;
  }

  response(response: ModelResponse): ModelResponse {
    if (response.message.toolCalls.length === 0 || this.#tools.length === 0) return response;
    return {
      ...response,
      message: { ...response.message, toolCalls: response.message.toolCalls.map((c) => this.call(c)) },
    };
  }

  event(event: ModelStreamEvent): ModelStreamEvent {
    if (event.type === 'tool_call_end') return { ...event, call: this.call(event.call) };
    if (event.type === 'done') return { ...event, response: this.response(event.response) };
    return event;
  }

  /** The schema the server published, when this tool was sent strict (cached per request). */
  #original(name: string): JsonSchema | undefined {
    if (!this.#originals.has(name)) {
      const tool = this.#tools.find((t) => t.name === name);
      const schema = tool ? objectSchema(tool.inputSchema) : undefined;
      this.#originals.set(name, schema && toStrictSchema(schema) ? schema : null);
    }
    return this.#originals.get(name) ?? undefined;
  }
}

type JsonRecord = Record<string, unknown>;
const MAX_DEPTH = 32;

function dropNulls(value: unknown, node: unknown, root: JsonSchema, depth: number): unknown {
  const schema = resolve(node, root);
  if (!schema || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => dropNulls(item, schema.items, root, depth + 1));
  if (!isRecord(value) || !isRecord(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const out: JsonRecord = {};
  for (const [key, item] of Object.entries(value)) {
    const property = schema.properties[key];
    if (item === null && !required.has(key) && !acceptsNull(resolve(property, root))) continue;
    out[key] = dropNulls(item, property, root, depth + 1);
  }
  return out;
}

function acceptsNull(schema: JsonSchema | undefined): boolean {
  if (!schema) return true; // unknown property: leave what the model said
  const { type } = schema;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ('const' in schema) return schema.const === null;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) return branches.some((b) => isRecord(b) && acceptsNull(b));
  }
  return type === undefined && schema.$ref === undefined; // no type constraint: null is a value like any
}

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`) within the tool's own schema. */
function resolve(node: unknown, root: JsonSchema): JsonSchema | undefined {
  let current = node;
  for (let hops = 0; isRecord(current) && typeof current.$ref === 'string' && hops < 8; hops++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#')) return undefined;
    let target: unknown = root;
    for (const token of ref.slice(1).split('/').filter(Boolean)) {
      target = isRecord(target) ? target[token.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
    }
    current = target;
  }
  return isRecord(current) ? current : undefined;
}

/** The request's strict-mode bookkeeping: its tools when `strictTools` is on, none otherwise. */
export function strictArgumentsFor(strictTools: boolean | undefined, request: ModelRequest): StrictArguments {
  return new StrictArguments(strictTools ? (request.tools ?? []) : []);
}

/** A provider's stream with strict mode's nullable stand-ins for optional properties dropped again. */
export async function* strictStream(
  strict: StrictArguments,
  events: AsyncIterable<ModelStreamEvent>,
): AsyncGenerator<ModelStreamEvent> {
  for await (const event of events) yield strict.event(event);
}
