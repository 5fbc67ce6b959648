/**
 * Functions the generated subset validators call, each matching what ajv's generated code does.
 */
import deepEqual from 'fast-deep-equal';

/** Length in code points, a surrogate pair counting once, a lone surrogate once (ajv's ucs2length). */
export function codePointLength(text: string): number {
  let length = 0;
  for (let pos = 0; pos < text.length; ) {
    length++;
    const unit = text.charCodeAt(pos++);
    if (unit >= 0xd800 && unit <= 0xdbff && pos < text.length && (text.charCodeAt(pos) & 0xfc00) === 0xdc00)
      pos++;
  }
  return length;
}

/** A member name as an instance path segment (RFC 6901 escapes). */
export function pointerSegment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

type TypeTest = (item: unknown) => boolean;

/**
 * ajv's `uniqueItems` when `items` declares only scalar types: items of another type are skipped, the rest
 * indexed by their string form (a string suffixed with `_` when several types are declared) in a plain object,
 * from the end. Returns ajv's "j and i" of the first duplicate found, or undefined. A plain object, as in ajv:
 * the string `__proto__` cannot be stored in it, so two of them are not reported.
 */
export function duplicateScalars(list: unknown[], tests: TypeTest[], suffix: boolean): string | undefined {
  const indices: Record<string, unknown> = {};
  for (let i = list.length; i--; ) {
    let item = list[i];
    if (!matchesAny(tests, item)) continue;
    if (suffix && typeof item === 'string') item += '_';
    const seen = indices[item as string];
    if (typeof seen === 'number') return `${seen} and ${i}`;
    indices[item as string] = i;
  }
  return undefined;
}

function matchesAny(tests: TypeTest[], item: unknown): boolean {
  for (const test of tests) if (test(item)) return true;
  return false;
}

/** ajv's `uniqueItems` otherwise: every pair compared with deepEqual, from the end. */
export function duplicatePairs(list: unknown[]): string | undefined {
  for (let i = list.length; i--; ) {
    for (let j = i; j--; ) if (deepEqual(list[i], list[j])) return `${j} and ${i}`;
  }
  return undefined;
}

/** ajv's type tests (strictNumbers off), as functions, for duplicateScalars. */
export const TYPE_TESTS: Record<string, TypeTest> = {
  null: (item) => item === null,
  boolean: (item) => typeof item === 'boolean',
  string: (item) => typeof item === 'string',
  number: (item) => typeof item === 'number',
  integer: (item) => typeof item === 'number' && !(item % 1) && !Number.isNaN(item),
};
