/**
 * The graph of relative imports between the TypeScript files under a directory, and its cycles. An edge is
 * type-only when the statement is `import type` / `export type` or names only `type` specifiers: erased at
 * compile time, so harmless at run time, yet a loop in the design all the same.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface ImportEdge {
  /** The imported file, relative to the graph's root, as a .ts path. */
  readonly target: string;
  readonly typeOnly: boolean;
}

/** File (relative to the root) -> the files it imports. */
export type ImportGraph = Map<string, ImportEdge[]>;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// `import|export [type] <clause> from './x.js'`, a side-effect `import './x.js'`, and `import('./x.js')`.
const IMPORT =
  /(?:^|[\n;])\s*(?:import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*'(\.[^']+)'|(?:^|[\n;])\s*import\s*'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

function isTypeOnly(typeKeyword: string | undefined, clause: string | undefined): boolean {
  if (typeKeyword) return true;
  const names = clause?.trim().match(/^\{([\s\S]*)\}$/)?.[1];
  if (names === undefined) return false;
  const specifiers = names
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return specifiers.length > 0 && specifiers.every((name) => name.startsWith('type '));
}

/** The relative imports of one file's text; `from` is the file's path, for resolving. */
export function importsOf(text: string, from: string, root: string): ImportEdge[] {
  return [...text.matchAll(IMPORT)].map((match) => {
    const specifier = (match[3] ?? match[4] ?? match[5])!;
    const target = relative(root, resolve(dirname(from), specifier)).replace(/\.js$/, '.ts');
    return { target, typeOnly: isTypeOnly(match[1], match[2]) };
  });
}

export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles(root)) {
    graph.set(relative(root, file), importsOf(readFileSync(file, 'utf8'), file, root));
  }
  return graph;
}

/**
 * The cycles of the graph: every strongly connected component of more than one file, or a file importing
 * itself (Tarjan's algorithm), each sorted, in a stable order. `typeOnly: false` leaves out type-only edges.
 */
export function importCycles(graph: ImportGraph, options: { typeOnly: boolean }): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const successors = (file: string) =>
    (graph.get(file) ?? [])
      .filter((edge) => (options.typeOnly || !edge.typeOnly) && graph.has(edge.target))
      .map((edge) => edge.target);

  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of successors(file)) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || successors(file).includes(file)) cycles.push(component.sort());
  };

  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
