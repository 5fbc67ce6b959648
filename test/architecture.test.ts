/**
 * Holds the layering of STYLE.md: imports only go downward, client and server never import each other,
 * providers never import MCP, nothing imports the composition roots, and no file imports itself back through
 * a chain of imports.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './support/import-graph.js';

const src = resolve(import.meta.dirname, '..', 'src');

const allowed: Record<string, string[]> = {
  util: ['util'],
  jsonrpc: ['util', 'jsonrpc'],
  mcp: ['util', 'jsonrpc', 'mcp'],
  transports: ['util', 'jsonrpc', 'mcp', 'transports'],
  server: ['util', 'jsonrpc', 'mcp', 'transports', 'server'],
  client: ['util', 'jsonrpc', 'mcp', 'transports', 'client'],
  auth: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'server', 'auth'],
  agent: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'auth', 'agent'],
  providers: ['util', 'providers', 'agent/model.ts'],
  conformance: ['*'],
  cli: ['*'],
  'index.ts': ['util', 'jsonrpc', 'mcp', 'client', 'server'],
};

/**
 * Type-only cycles there were when the cycle check was written, in trees being reshaped at the time. A new
 * type-only cycle fails the check, and so does an entry here that is no longer a cycle (remove it).
 */
const KNOWN_TYPE_ONLY_CYCLES = [['server/stateless.ts', 'server/subscriptions.ts']];

function layerOf(path: string): string {
  return path.split('/')[0]!;
}

describe('architecture', () => {
  const graph = importGraph(src);
  const violations: string[] = [];
  for (const [file, edges] of graph) {
    const layer = layerOf(file);
    const rules = allowed[layer];
    for (const { target } of edges) {
      const targetLayer = layerOf(target);
      if (targetLayer === 'cli' && layer !== 'cli') violations.push(`${file} imports the CLI`);
      if (!rules || rules.includes('*')) continue;
      const ok = rules.some((rule) => targetLayer === rule || target.startsWith(rule));
      if (!ok) violations.push(`${file} (${layer}) imports ${target}`);
    }
  }

  it('every import goes downward', () => {
    expect(violations).toEqual([]);
  });

  it('knows every layer under src/', () => {
    const layers = new Set([...graph.keys()].map(layerOf));
    expect([...layers].filter((layer) => !(layer in allowed))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(importCycles(graph, { typeOnly: false })).toEqual([]);
  });

  it('has no type-only import cycle beyond the known ones', () => {
    expect(importCycles(graph, { typeOnly: true })).toEqual(KNOWN_TYPE_ONLY_CYCLES);
  });
});

describe('the import cycle finder', () => {
  const root = mkdtempSync(join(tmpdir(), 'agentforge-cycles-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const plant = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
    return importGraph(root);
  };

  it('finds a planted cycle of value imports, and only the files on it', () => {
    const graph = plant({
      'a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'b.ts': "import {\n  c,\n  type C,\n} from './c.js';\nexport const b: C = c;\n",
      'c.ts':
        "export type C = number;\nexport const c = 1;\nexport async function later() {\n  return import('./a.js');\n}\n",
      'd.ts': "import './a.js';\n",
      'self.ts': "export * from './self.js';\n",
    });
    expect(importCycles(graph, { typeOnly: false })).toEqual([['a.ts', 'b.ts', 'c.ts'], ['self.ts']]);
  });

  it('tells type-only cycles apart from value cycles', () => {
    const graph = plant({
      'a.ts': 'export const a = 1;\n',
      'b.ts': 'export const b = 2;\n',
      'c.ts': 'export const c = 3;\n',
      'self.ts': 'export const self = 4;\n',
      'e.ts': "import type { F } from './f.js';\nexport interface E { f?: F }\n",
      'f.ts':
        "import { type E } from './e.js';\nexport type { G } from './g.js';\nexport interface F { e?: E }\n",
      'g.ts': 'export type G = string;\n',
    });
    expect(importCycles(graph, { typeOnly: false })).toEqual([]);
    expect(importCycles(graph, { typeOnly: true })).toEqual([['e.ts', 'f.ts']]);
  });
});
