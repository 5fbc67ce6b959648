/**
 * Bounds on JSON that came from a peer, checked without recursion: a schema or a value nested 10,000 deep
 * must be refused here, not overflow the stack of whichever recursive walk (a validator compiler, a
 * fingerprint, JSON.stringify) meets it first.
 */
export interface JsonShapeLimits {
  readonly maxDepth: number;
  readonly maxNodes: number;
}

/** Why `value` is beyond the limits (`nesting exceeds 64 levels`, `has more than 20000 nodes`), or undefined when it is within them. */
export function jsonShapeViolation(value: unknown, limits: JsonShapeLimits): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const next = stack.pop() as { value: unknown; depth: number };
    // Arrays too: their items count toward depth and size like an object's members.
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > limits.maxDepth) return `nesting exceeds ${limits.maxDepth} levels`;
    if (++nodes > limits.maxNodes) return `has more than ${limits.maxNodes} nodes`;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth: next.depth + 1 });
  }
  return undefined;
}
