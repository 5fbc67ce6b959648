/**
 * Holds the layering of STYLE.md: imports only go downward, client and server never import each other,
 * providers never import MCP, and nothing imports the composition roots.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '..', 'src');

const allowed: Record<string, string[]> = {
  util: ['util'],
  jsonrpc: ['util', 'jsonrpc'],
  mcp: ['util', 'jsonrpc', 'mcp'],
  transports: ['util', 'jsonrpc', 'mcp', 'transports'],
  server: ['util', 'jsonrpc', 'mcp', 'transports', 'server'],
  client: ['util', 'jsonrpc', 'mcp', 'transports', 'client'],
  auth: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'server', 'auth'],
  agent: [
    'util',
    'jsonrpc',
    'mcp',
    'transports',
    'client',
    'auth',
    'agent',
    // The client halves of the extensions only (their server halves import the server).
    'extensions/tasks/client.js',
    'extensions/skills/client.js',
  ],
  // An extension plugs into both sides through their seams (server/extension.ts, the client's); it never
  // reaches into the agent, and client and server code under it stay in separate files.
  extensions: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'server', 'extensions'],
  providers: ['util', 'providers', 'agent/model.js'],
  conformance: ['*'],
  cli: ['*'],
  'index.ts': ['util', 'jsonrpc', 'mcp', 'client', 'server'],
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(path: string): string {
  return relative(src, path).split('/')[0]!;
}

describe('architecture', () => {
  const violations: string[] = [];
  for (const file of files(src)) {
    const layer = layerOf(file);
    const rules = allowed[layer];
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = resolve(dirname(file), match[1]!);
      const targetRel = relative(src, target);
      const targetLayer = targetRel.split('/')[0]!;
      if (targetLayer === 'cli' && layer !== 'cli') violations.push(`${relative(src, file)} imports the CLI`);
      if (!rules || rules.includes('*')) continue;
      const ok = rules.some((rule) => targetLayer === rule || targetRel.startsWith(`${rule}`));
      if (!ok) violations.push(`${relative(src, file)} (${layer}) imports ${targetRel}`);
    }
  }

  it('every import goes downward', () => {
    expect(violations).toEqual([]);
  });

  it('knows every layer under src/', () => {
    const layers = new Set(files(src).map(layerOf));
    expect([...layers].filter((layer) => !(layer in allowed))).toEqual([]);
  });
});
