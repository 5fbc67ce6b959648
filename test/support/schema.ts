/**
 * Validates messages against the official JSON Schema of each MCP revision (spec/<rev>/schema.json, carried by the project).
 * Draft-07 files (2024-11-05 .. 2025-06-18) use ajv's draft-07 class, 2020-12 files use Ajv2020.
 * Usage: `expectValid('2025-11-25', 'JSONRPCRequest', message)` or `validateAgainstSpec(rev, def, value)`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

const here = dirname(fileURLToPath(import.meta.url));
export const SPEC_DIR = join(here, '..', '..', 'spec');

type Validator = (value: unknown) => boolean;
interface Compiled {
  ajv: {
    getSchema(ref: string): (Validator & { errors?: unknown }) | undefined;
    errorsText(errors?: unknown): string;
  };
  defsKey: string;
}
const compiled = new Map<string, Compiled>();

function load(revision: string): Compiled {
  const cached = compiled.get(revision);
  if (cached) return cached;
  const schema = JSON.parse(readFileSync(join(SPEC_DIR, revision, 'schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const is2020 = String(schema.$schema).includes('2020-12');
  const options = { strict: false, allErrors: true, validateFormats: false };
  const AjvClass = (is2020 ? Ajv2020 : Ajv) as unknown as new (
    o: object,
  ) => Compiled['ajv'] & {
    addSchema(s: object, key: string): void;
  };
  const ajv = new AjvClass(options);
  const { $schema: _ignored, ...rest } = schema;
  ajv.addSchema({ ...rest, $id: `mcp-${revision}` }, `mcp-${revision}`);
  const entry = { ajv, defsKey: is2020 ? '$defs' : 'definitions' };
  compiled.set(revision, entry);
  return entry;
}

/** Returns undefined when valid, else ajv's error text. */
export function validateAgainstSpec(revision: string, defName: string, value: unknown): string | undefined {
  const { ajv, defsKey } = load(revision);
  const validate = ajv.getSchema(`mcp-${revision}#/${defsKey}/${defName}`);
  if (!validate) throw new Error(`no definition ${defName} in the ${revision} schema`);
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

export function expectValid(revision: string, defName: string, value: unknown): void {
  const problem = validateAgainstSpec(revision, defName, value);
  if (problem) throw new Error(`${defName} invalid for ${revision}: ${problem}\n${JSON.stringify(value)}`);
}

/** The right message definition for a JSON-RPC message of any kind. */
export function messageDefName(message: Record<string, unknown>): string {
  if ('method' in message) return 'id' in message ? 'JSONRPCRequest' : 'JSONRPCNotification';
  if ('error' in message) return 'JSONRPCErrorResponse';
  return 'JSONRPCResultResponse';
}
