/**
 * Tool schemas: plain JSON Schema (2020-12 by default, 2019-09 or draft-07 when `$schema` says so) or any
 * Standard Schema. Compiled once at registration. `$ref` resolves only inside the schema: validators are
 * compiled synchronously with no loader, so nothing is ever fetched, and an unresolvable reference fails
 * registration instead of a call.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { JSONObject } from '../mcp/types.js';
import { jsonShapeViolation } from '../util/json-shape.js';
import { isSimpleSchema } from './schema-subset.js';
import { compileSubsetValidator } from './schema-validator.js';
import type { SchemaInput, StandardSchema } from './types.js';
import { isRecord } from '../util/record.js';

export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

export interface CompiledSchema {
  /** The JSON Schema sent in tools/list (the caller's object as given, or the vendor's conversion). */
  readonly jsonSchema: JSONObject;
  validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome>;
}

/** Nesting deeper than this is refused at registration (composition bombs, stack depth in validators). */
export const MAX_SCHEMA_DEPTH = 64;
const MAX_SCHEMA_NODES = 20_000;
const MAX_REPORTED_ERRORS = 5;

type Dialect = '2020-12' | '2019-09' | 'draft-07';
type AnyAjv = {
  compile(schema: object): ValidateFunction;
  validateSchema(schema: object): boolean | Promise<unknown>;
  errorsText(errors?: unknown): string;
  errors?: unknown;
};

/**
 * ajv's options for tool schemas; the subset validator gives the same verdicts and first messages as ajv with
 * these. addUsedSchema: false — a schema's `$id` never registers it globally, so two tools may share an `$id`
 * and one tool's schema can never be `$ref`-ed from another's.
 */
export const AJV_OPTIONS = {
  strict: false,
  allErrors: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
} as const;

const instances = new Map<Dialect, AnyAjv>();

function ajvFor(dialect: Dialect): AnyAjv {
  let ajv = instances.get(dialect);
  if (ajv) return ajv;
  const AjvClass = ajvClass(dialect);
  ajv = new AjvClass(AJV_OPTIONS);
  instances.set(dialect, ajv);
  return ajv;
}

type AjvConstructor = new (options: object) => AnyAjv;
let requireAjv: NodeJS.Require | undefined;

/**
 * ajv is loaded on first need, not at import: it is most of a server's startup time (~100 ms) and ~6 MB of its
 * memory, and a server whose tools have everyday schemas never needs it (schema-validator.ts validates those).
 */
function ajvClass(dialect: Dialect): AjvConstructor {
  requireAjv ??= createRequire(import.meta.url);
  if (dialect === '2020-12') return (requireAjv('ajv/dist/2020') as { Ajv2020: AjvConstructor }).Ajv2020;
  if (dialect === '2019-09') return (requireAjv('ajv/dist/2019') as { Ajv2019: AjvConstructor }).Ajv2019;
  return (requireAjv('ajv') as { Ajv: AjvConstructor }).Ajv;
}

/** The official meta-schema URIs only: any other `$schema` would be a reference ajv cannot (and must not) fetch. */
const DIALECT_URI = /^https?:\/\/json-schema\.org\/(?:draft\/(2020-12|2019-09)|(draft-07))\/schema#?$/;

function dialectOf(schema: JSONObject): Dialect {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') throw new TypeError('$schema must be a string');
  const match = DIALECT_URI.exec(declared);
  if (!match) {
    throw new TypeError(
      `unsupported JSON Schema dialect ${JSON.stringify(declared)} (use 2020-12, 2019-09 or draft-07)`,
    );
  }
  return (match[1] ?? match[2]) as Dialect;
}

export function isStandardSchema(value: unknown): value is StandardSchema {
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  const standard = (value as { '~standard'?: unknown } | null)?.['~standard'];
  return isRecord(standard) && typeof standard.validate === 'function';
}

/** Refuses schemas nested beyond MAX_SCHEMA_DEPTH or larger than MAX_SCHEMA_NODES, iteratively. */
export function checkSchemaShape(schema: unknown): void {
  const violation = jsonShapeViolation(schema, { maxDepth: MAX_SCHEMA_DEPTH, maxNodes: MAX_SCHEMA_NODES });
  if (violation) throw new RangeError(`schema ${violation}`);
}

function describeErrors(validate: ValidateFunction): string {
  const errors = validate.errors ?? [];
  return errors
    .slice(0, MAX_REPORTED_ERRORS)
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath;
      const extra =
        error.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'` : '';
      return `${where} ${error.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
}

type Validator = (value: unknown) => ValidationOutcome;

/** Compiled validators shared by identical schemas (many generated tools share one), per dialect. */
const compiledByText = new Map<string, Validator>();
const MAX_SHARED_VALIDATORS = 2000;

function compileShared(dialect: Dialect, schema: JSONObject, simple: boolean): Validator {
  const key = `${dialect}\u0000${JSON.stringify(schema)}`;
  const cached = compiledByText.get(key);
  if (cached) return cached;
  const validate = simple ? compileSubset(schema) : compileAjv(dialect, schema);
  if (compiledByText.size < MAX_SHARED_VALIDATORS) compiledByText.set(key, validate);
  return validate;
}

/** A schema in the everyday subset is validated without ajv, with ajv's verdicts and first message. */
function compileSubset(schema: JSONObject): Validator {
  const check = compileSubsetValidator(schema);
  return (value) => {
    const message = check(value);
    return message === undefined ? { ok: true, value } : { ok: false, message };
  };
}

function compileAjv(dialect: Dialect, schema: JSONObject): Validator {
  const validate = ajvFor(dialect).compile(schema);
  return (value) =>
    validate(value) ? { ok: true, value } : { ok: false, message: describeErrors(validate) };
}

/**
 * Checks a JSON Schema at registration (meta-schema, nesting, local references) and compiles it on first use:
 * ajv's code generation costs milliseconds per schema, which a server with a thousand tools should not pay at
 * startup.
 */
function compileJsonSchema(schema: JSONObject): CompiledSchema {
  checkSchemaShape(schema);
  const dialect = dialectOf(schema);
  // The meta-schema is checked (and ajv loaded) only for schemas the subset check cannot vouch for.
  const simple = isSimpleSchema(schema);
  if (!simple) {
    const ajv = ajvFor(dialect);
    if (!ajv.validateSchema(schema))
      throw new TypeError(`invalid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  }
  checkLocalRefs(schema);
  let validate: Validator | undefined;
  return {
    jsonSchema: schema,
    validate(value) {
      try {
        validate ??= compileShared(dialect, schema, simple);
        return validate(value);
      } catch (error) {
        // A pathological input against a recursive schema can exhaust the stack: a failed validation, not a crash.
        return { ok: false, message: `could not be validated (${(error as Error).message})` };
      }
    },
  };
}

/** Keywords whose values are instance data, not subschemas: a `$ref` inside a default is just data there. */
const INSTANCE_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names to subschemas: a property named `default` is a schema, not data. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** Every `$ref` must resolve inside the schema: a JSON pointer, an `$anchor`, or an embedded `$id`. Nothing is fetched. */
export function checkLocalRefs(schema: JSONObject): void {
  const refs: string[] = [];
  const anchors = new Set<string>();
  const ids: JSONObject[] = [schema];
  const idNames = new Set<string>();
  const stack: Array<{ node: unknown; names: boolean }> = [{ node: schema, names: false }];
  while (stack.length > 0) {
    const { node, names } = stack.pop() as { node: unknown; names: boolean };
    // Arrays too: a schema's subschemas sit in arrays (allOf, prefixItems), walked index by index.
    if (typeof node !== 'object' || node === null) continue;
    const record = node as JSONObject;
    for (const key of ['$ref', '$dynamicRef'] as const)
      if (typeof record[key] === 'string') refs.push(record[key]);
    for (const key of ['$anchor', '$dynamicAnchor'] as const)
      if (typeof record[key] === 'string') anchors.add(record[key]);
    if (typeof record.$id === 'string' && record !== schema) {
      ids.push(record);
      idNames.add(record.$id.replace(/#$/, ''));
    }
    const keyword = !names && !Array.isArray(record);
    for (const [key, child] of Object.entries(record)) {
      if (keyword && INSTANCE_KEYWORDS.has(key)) continue;
      stack.push({ node: child, names: keyword && NAME_MAPS.has(key) });
    }
  }
  for (const ref of refs) {
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    if (base !== '' && !idNames.has(base) && base !== schema.$id) {
      throw new TypeError(
        `invalid JSON Schema: $ref ${JSON.stringify(ref)} points outside the schema (never fetched)`,
      );
    }
    if (fragment === '' || anchors.has(fragment)) continue;
    if (!fragment.startsWith('/') || !ids.some((root) => resolvePointer(root, fragment) !== undefined)) {
      throw new TypeError(
        `invalid JSON Schema: $ref ${JSON.stringify(ref)} does not resolve inside the schema`,
      );
    }
  }
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    // Arrays too: a JSON Pointer steps into an array by index (RFC 6901).
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function standardToJsonSchema(schema: StandardSchema, role: 'input' | 'output'): JSONObject {
  const converter = schema['~standard'].jsonSchema?.[role];
  let converted: unknown;
  if (typeof converter === 'function') {
    converted = converter.call(schema['~standard'].jsonSchema, { target: 'draft-2020-12' });
  } else if (typeof (schema as { toJSONSchema?: unknown }).toJSONSchema === 'function') {
    converted = (schema as unknown as { toJSONSchema(): unknown }).toJSONSchema();
  } else {
    throw new TypeError(
      `cannot convert a ${schema['~standard'].vendor} schema to JSON Schema (no ~standard.jsonSchema); pass a JSON Schema`,
    );
  }
  if (!isRecord(converted)) {
    throw new TypeError('the schema converter did not return a JSON Schema object');
  }
  checkSchemaShape(converted);
  return converted;
}

function compileStandardSchema(schema: StandardSchema, role: 'input' | 'output'): CompiledSchema {
  const jsonSchema = standardToJsonSchema(schema, role);
  const toOutcome = (
    result: Awaited<ReturnType<StandardSchema['~standard']['validate']>>,
  ): ValidationOutcome => {
    if (result.issues === undefined) return { ok: true, value: result.value };
    const message = result.issues
      .slice(0, MAX_REPORTED_ERRORS)
      .map((issue) => {
        const path = (issue.path ?? []).map((segment) =>
          isRecord(segment) && 'key' in segment ? String(segment.key) : String(segment),
        );
        return path.length > 0 ? `/${path.join('/')}: ${issue.message}` : issue.message;
      })
      .join('; ');
    return { ok: false, message };
  };
  return {
    jsonSchema,
    validate(value) {
      const result = schema['~standard'].validate(value);
      return result instanceof Promise ? result.then(toOutcome) : toOutcome(result);
    },
  };
}

/**
 * Compiles a tool's input or output schema. Throws (at registration) on an unsupported dialect, an external or
 * unresolvable `$ref`, excessive nesting, or a root that is not an object schema.
 */
export function compileSchema(input: SchemaInput, role: 'input' | 'output'): CompiledSchema {
  const compiled = isStandardSchema(input)
    ? compileStandardSchema(input, role)
    : compileJsonSchema(input as JSONObject);
  const rootType = compiled.jsonSchema.type;
  // MCP: inputSchema is `type: "object"`. outputSchema may describe any JSON value (2026-07-28 server/tools);
  // handshake-era codecs list only object-rooted ones.
  if (role === 'input' && rootType !== 'object')
    throw new TypeError('a tool inputSchema must have type "object"');
  return compiled;
}

/** The schema of a tool that takes no arguments. */
export const EMPTY_INPUT_SCHEMA: CompiledSchema = {
  jsonSchema: { type: 'object' },
  validate: (value) =>
    isRecord(value) ? { ok: true, value } : { ok: false, message: '(root) must be object' },
};
