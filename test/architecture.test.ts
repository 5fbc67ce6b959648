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
  client: ['util', 'jsonrpc', 'mcp', 'transports', 'auth', 'client'],
  auth: ['util', 'jsonrpc', 'mcp', 'transports', 'auth'],
  agent: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'auth', 'agent'],
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

  // The two halves of src/auth serve opposite peers: the resource server never reaches into the client, nor the
  // OAuth client into the server.
  it('auth/server and auth/client keep apart', () => {
    const crossings: string[] = [];
    for (const [half, forbidden] of [
      ['auth/server', ['client', 'auth/client']],
      ['auth/client', ['server', 'auth/server']],
    ] as const) {
      const dir = join(src, half);
      let sources: string[];
      try {
        sources = files(dir);
      } catch {
        continue;
      }
      for (const file of sources) {
        for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
          const target = relative(src, resolve(dirname(file), match[1]!));
          if (forbidden.some((layer) => target === layer || target.startsWith(`${layer}/`)))
            crossings.push(`${relative(src, file)} imports ${target}`);
        }
      }
    }
    expect(crossings).toEqual([]);
  });

  it('knows every layer under src/', () => {
    const layers = new Set(files(src).map(layerOf));
    expect([...layers].filter((layer) => !(layer in allowed))).toEqual([]);
  });
});

/**
 * STYLE.md: one codec per protocol era behind one interface, instead of `if (legacy)` scattered through the
 * code. A comparison with an era's name (`era === 'stateless'`, `eraOf(v) !== 'handshake'`, `case 'stateless'`,
 * `switch (x.era)`) may appear only in the files below: the codecs, negotiation, the revision table, and the
 * HTTP transports, whose two modes are the two eras' wire rules.
 */
const ERA_BRANCH =
  /[!=]==?\s*'(?:stateless|handshake)'|'(?:stateless|handshake)'\s*[!=]==?|case\s+'(?:stateless|handshake)'|switch\s*\([^)]*\bera\)/;

const ERA_BRANCHES_ALLOWED: Record<string, string> = {
  'client/era.ts': 'negotiation: chooses the codec',
  'server/codec.ts': "the server's per-revision codec",
  'server/routes.ts': 'the route table: the era each method is served in',
  'server/stateless.ts': "the server's stateless-era request reading",
  'server/operations.ts':
    'MissingRequiredClientCapability is a stateless-era error (server dispatch, being rewritten)',
  'mcp/revisions.ts': 'the revision table that defines the eras',
  'transports/http/client/streamable.ts': "the transport's session and stateless modes",
  'transports/http/server/handler.ts': 'the HTTP endpoint routes a request by its revision header',
  'transports/http/server/validate.ts': 'stateless-era header validation',
  'conformance/server-fixture-input.ts': 'a conformance fixture reporting which era it saw',
  'conformance/client-fixture.ts': 'a conformance fixture choosing a pinned revision from its scenario',
};

/** The lines of `text` (comments aside) that branch on an era. */
function eraBranches(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, ''))
    .filter((line) => !/^\s*\*/.test(line) && ERA_BRANCH.test(line))
    .map((line) => line.trim());
}

describe('era branches', () => {
  it('are recognised in their usual spellings, and era values that are data are not', () => {
    expect(eraBranches("if (client.era === 'stateless') return listen();")).toHaveLength(1);
    expect(eraBranches("const ping = state.era !== 'handshake' ? discover : ping;")).toHaveLength(1);
    expect(eraBranches("if (eraOf(version) === 'handshake') initialize();")).toHaveLength(1);
    expect(eraBranches("switch (state.era) {\n  case 'stateless':\n    break;\n}")).toHaveLength(2);
    expect(eraBranches("return { era: 'stateless', protocolVersion };")).toEqual([]);
    expect(eraBranches('...(s.era === undefined ? {} : { era: s.era }),')).toEqual([]);
    expect(eraBranches("// the era === 'stateless' case is the codec's")).toEqual([]);
  });

  const found = new Map<string, string[]>();
  for (const file of files(src)) {
    const branches = eraBranches(readFileSync(file, 'utf8'));
    if (branches.length > 0) found.set(relative(src, file), branches);
  }

  it('appear only in the codecs, negotiation and the transports', () => {
    const outside = [...found].filter(([file]) => !(file in ERA_BRANCHES_ALLOWED));
    expect(outside).toEqual([]);
  });

  it('the allow-list names no file that no longer branches', () => {
    expect(Object.keys(ERA_BRANCHES_ALLOWED).filter((file) => !found.has(file))).toEqual([]);
  });
});
