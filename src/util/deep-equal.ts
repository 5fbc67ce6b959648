/**
 * Deep equality with the semantics of fast-deep-equal, the function ajv calls for `const`, `enum` and
 * `uniqueItems`: a tool schema validated without ajv must give the same verdicts, including on its quirks
 * (objects compare their `constructor`, `valueOf` and `toString` members first, so `{"valueOf": 1}` throws
 * "a.valueOf is not a function" here as it does there). The parameters keep the names `a` and `b` for that
 * reason: V8 builds the message from the source text.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    if (a.constructor !== b.constructor) return false;
    if (Array.isArray(a)) {
      const items = b as unknown[];
      if (a.length !== items.length) return false;
      for (let i = a.length; i-- !== 0; ) if (!deepEqual(a[i], items[i])) return false;
      return true;
    }
    if (a.constructor === RegExp) {
      return (a as RegExp).source === (b as RegExp).source && (a as RegExp).flags === (b as RegExp).flags;
    }
    if (a.valueOf !== Object.prototype.valueOf) return a.valueOf() === b.valueOf();
    if (a.toString !== Object.prototype.toString) return a.toString() === b.toString();
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (let i = keys.length; i-- !== 0; ) if (!Object.hasOwn(b, keys[i] as string)) return false;
    for (let i = keys.length; i-- !== 0; ) {
      const key = keys[i] as string;
      if (!deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
    }
    return true;
  }
  // Both NaN (not JSON, but a value handed over in memory can hold it).
  return Number.isNaN(a) && Number.isNaN(b);
}
