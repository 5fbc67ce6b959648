/**
 * The source-building pieces of the subset validator. Generated code only ever contains names made here,
 * string literals made by JSON.stringify, and numbers the subset check has proved finite; every other value
 * (regular expressions, `const` and `enum` values, helper functions) is passed in by reference.
 */
export interface Codegen {
  /** A name bound, outside the validating function, to `value`. */
  ref(value: unknown): string;
  /** A fresh local variable name. */
  local(prefix: string): string;
}

/** A piece of an instance path or message: literal text, or a JS expression evaluating to a string or number. */
export type Part = { text: string } | { code: string };
export type Path = readonly Part[];

export function createCodegen(): Codegen & { prologue(): string; refs: unknown[] } {
  const refs: unknown[] = [];
  let count = 0;
  return {
    refs,
    ref(value) {
      refs.push(value);
      return `r${refs.length - 1}`;
    },
    local(prefix) {
      count++;
      return `${prefix}${count}`;
    },
    prologue() {
      return refs.map((_, i) => `const r${i} = refs[${i}];`).join('\n');
    },
  };
}

/** A finite number as a literal (the subset check admits no other). */
export function literal(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  return `(${String(value)})`;
}

export function child(path: Path, segment: Part): Path {
  return [...path, { text: '/' }, segment];
}

/** `<instancePath> <message>` as schema.ts reports ajv's first error: `(root)` for the root. */
export function fail(path: Path, ...message: Part[]): string {
  const parts = [...(path.length === 0 ? [{ text: '(root)' }] : path), { text: ' ' }, ...message];
  const code: string[] = [];
  let text = '';
  for (const part of parts) {
    if ('text' in part) {
      text += part.text;
      continue;
    }
    if (text !== '') code.push(JSON.stringify(text));
    text = '';
    code.push(`String(${part.code})`);
  }
  if (text !== '') code.push(JSON.stringify(text));
  return `return ${code.join(' + ')};`;
}

/** ajv's type tests with strictNumbers off (strict: false): `integer` is a number with no fractional part. */
export function typeTest(type: string, value: string): string {
  switch (type) {
    case 'null':
      return `${value} === null`;
    case 'boolean':
    case 'string':
    case 'number':
      return `typeof ${value} === ${JSON.stringify(type)}`;
    case 'integer':
      return `(typeof ${value} === "number" && !(${value} % 1) && !Number.isNaN(${value}))`;
    case 'array':
      return `Array.isArray(${value})`;
    case 'object':
      return `(typeof ${value} === "object" && ${value} !== null && !Array.isArray(${value}))`;
    default:
      throw new TypeError(`unknown JSON type ${type}`);
  }
}

export function anyType(types: readonly string[], value: string): string {
  return types.map((type) => typeTest(type, value)).join(' || ');
}

/** The schema's `type` as a list (empty when absent). */
export function typesOf(schema: unknown): string[] {
  const declared =
    typeof schema === 'object' && schema !== null ? (schema as { type?: unknown }).type : undefined;
  if (declared === undefined) return [];
  return Array.isArray(declared) ? (declared as string[]) : [declared as string];
}
