/**
 * Holds the layering of STYLE.md: imports only go downward, client and server never import each other,
 * providers never import MCP, nothing imports the composition roots, and no file imports itself back through
 * a chain of imports.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './support/import-graph.js';

const src = resolve(import.meta.dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const allowed: Record<string, string[]> = {
  util: ['util'],
  jsonrpc: ['util', 'jsonrpc'],
  mcp: ['util', 'jsonrpc', 'mcp'],
  transports: ['util', 'jsonrpc', 'mcp', 'transports'],
  server: ['util', 'jsonrpc', 'mcp', 'transports', 'server'],
  client: ['util', 'jsonrpc', 'mcp', 'transports', 'auth', 'client'],
  // auth/server is server-side and auth/client client-side; the test below keeps the two halves apart.
  auth: ['util', 'jsonrpc', 'mcp', 'transports', 'server', 'auth'],
  agent: [
    'util',
    'jsonrpc',
    'mcp',
    'transports',
    'client',
    'auth',
    'agent',
    // The client halves of the extensions only (their server halves import the server).
    'extensions/tasks/client.ts',
    'extensions/skills/client.ts',
  ],
  // An extension plugs into both sides through their seams (server/extension.ts, the client's); it never
  // reaches into the agent, and client and server code under it stay in separate files.
  extensions: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'server', 'extensions'],
  // The gateway serves the host's upstreams through the server library (and guards them with auth/server).
  gateway: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'server', 'auth', 'agent', 'gateway'],
  providers: ['util', 'providers', 'agent/model.ts'],
  // OpenTelemetry sits beside the layers it instruments, through their seams (client middleware, the
  // server's request hook, the agent's tracing hook); nothing but the CLI imports it.
  otel: ['util', 'jsonrpc', 'mcp', 'transports', 'client', 'server', 'agent', 'otel'],
  // The Redis backends implement the core's (and the gateway's) interfaces; nothing imports them back.
  redis: ['util', 'jsonrpc', 'mcp', 'transports', 'server', 'extensions', 'gateway', 'redis'],
  conformance: ['*'],
  cli: ['*'],
  'index.ts': ['util', 'jsonrpc', 'mcp', 'client', 'server'],
};

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

  // @opentelemetry/api is an optional peer: only agentforge/otel imports it, and the CLI only dynamically.
  it('only agentforge/otel imports OpenTelemetry statically', () => {
    const importers = files(src)
      .filter((file) => /^\s*import[^(]*from\s*'@opentelemetry\//m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file))
      .filter((file) => !file.startsWith('otel/'));
    expect(importers).toEqual([]);
  });

  it('knows every layer under src/', () => {
    const layers = new Set([...graph.keys()].map(layerOf));
    expect([...layers].filter((layer) => !(layer in allowed))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(importCycles(graph, { typeOnly: false })).toEqual([]);
  });

  it('has no type-only import cycle either', () => {
    expect(importCycles(graph, { typeOnly: true })).toEqual([]);
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
  'server/stateless-meta.ts': "the server's stateless-era request reading",
  'server/tool-call.ts': 'MissingRequiredClientCapability is a stateless-era error',
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

/**
 * One plain-object check (src/util/record.ts `isRecord`): a hand-written copy, in either polarity
 * (`typeof x === 'object' && x !== null && !Array.isArray(x)`, `typeof x !== 'object' || x === null ||
 * Array.isArray(x)`), drifts from it the day one copy gains or loses a case.
 */
const PLAIN_OBJECT_CHECK =
  /typeof\s+([\w.$?]+)\s*===\s*'object'\s*&&\s*\1\s*!==?\s*null\s*&&\s*!\s*Array\.isArray\(\s*\1\s*\)|typeof\s+([\w.$?]+)\s*!==\s*'object'\s*\|\|\s*\2\s*===?\s*null\s*\|\|\s*Array\.isArray\(\s*\2\s*\)/;

describe('the plain-object check', () => {
  it('is recognised in both polarities, across lines', () => {
    expect(PLAIN_OBJECT_CHECK.test("typeof v === 'object' && v !== null && !Array.isArray(v)")).toBe(true);
    expect(
      PLAIN_OBJECT_CHECK.test("typeof a.b !== 'object' ||\n  a.b === null ||\n  Array.isArray(a.b)"),
    ).toBe(true);
    expect(PLAIN_OBJECT_CHECK.test("typeof a?.b === 'object' && a?.b !== null && !Array.isArray(a?.b)")).toBe(
      true,
    );
    expect(PLAIN_OBJECT_CHECK.test("typeof v === 'object' && v !== null")).toBe(false);
    expect(PLAIN_OBJECT_CHECK.test("typeof v === 'object' && w !== null && !Array.isArray(v)")).toBe(false);
  });

  it('is written once, in src/util/record.ts', () => {
    const copies = files(src)
      .map((file) => relative(src, file))
      .filter((file) => file !== join('util', 'record.ts'))
      .filter((file) => PLAIN_OBJECT_CHECK.test(readFileSync(join(src, file), 'utf8')));
    expect(copies).toEqual([]);
    expect(PLAIN_OBJECT_CHECK.test(readFileSync(join(src, 'util', 'record.ts'), 'utf8'))).toBe(true);
  });
});

/**
 * One naming for private members: ECMAScript `#name`, private at run time too (a TypeScript `private` is
 * reachable through a cast). A private constructor stays `private constructor`: a constructor has no `#` form.
 */
const TS_PRIVATE_MEMBER = /(?:^\s*(?:\/\*\*.*\*\/\s*)?|[(,]\s*)private\s+(?!constructor\b)/m;

describe('private members', () => {
  it('are recognised as declarations and parameter properties, not in prose', () => {
    expect(TS_PRIVATE_MEMBER.test('  private readonly slots = new Map();')).toBe(true);
    expect(TS_PRIVATE_MEMBER.test('  constructor(\n    private readonly options: Options,\n  ) {}')).toBe(
      true,
    );
    expect(TS_PRIVATE_MEMBER.test('  private async refresh(): Promise<void> {')).toBe(true);
    expect(TS_PRIVATE_MEMBER.test('  constructor(private readonly namer: ToolNamer) {}')).toBe(true);
    expect(TS_PRIVATE_MEMBER.test('  constructor(a: A, private b: B) {}')).toBe(true);
    expect(TS_PRIVATE_MEMBER.test('  private constructor(core: ClientCore) {')).toBe(false);
    expect(TS_PRIVATE_MEMBER.test('  readonly #slots = new Map();')).toBe(false);
    expect(TS_PRIVATE_MEMBER.test(' * private keys are never logged')).toBe(false);
  });

  it('are #private everywhere in src', () => {
    const declaring = files(src)
      .filter((file) => TS_PRIVATE_MEMBER.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(declaring).toEqual([]);
  });
});

/** STYLE.md: files under ~400 lines; past 420 a file holds more than one responsibility and is split. */
const MAX_FILE_LINES = 420;

describe('file size', () => {
  it(`no file in src is over ${MAX_FILE_LINES} lines`, () => {
    const long = files(src)
      .map((file) => ({
        file: relative(src, file),
        lines: readFileSync(file, 'utf8').trimEnd().split('\n').length,
      }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });
});
