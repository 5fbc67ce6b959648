// The package's JavaScript as one module per entry point (each subpath export and the bin) plus the chunks
// they share, made from tsc's module-per-file output. Node's ES module loader keeps a record, a job, the source
// text and the linking state of every module it loads: the client entry as 78 files left 478 KB of heap after
// import and took 35 ms; as 6 files, 147 KB and 17 ms. One build over every entry keeps a module that two
// entries share in one chunk, so a class is the same class whichever entry a user imports it from. Packages
// (dependencies, optional peers) and node: builtins stay imports; the .d.ts files stay as tsc wrote them.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { rolldown } from 'rolldown';

/** Entry name (its path under dist/ without `.js`) to file, for every export target and the bin. */
function entriesOf(manifest, dir) {
  const targets = [
    ...Object.values(manifest.exports).map((entry) => entry.default),
    ...Object.values(manifest.bin),
  ];
  const entries = {};
  for (const target of targets) {
    const name = /^\.\/dist\/(.+)\.js$/.exec(target)?.[1];
    if (!name) throw new Error(`bundle: ${target} is not a .js file under dist/`);
    entries[name] = join(dir, `${name}.js`);
  }
  return entries;
}

/**
 * Layers that every importer of one of their modules needs whole, one chunk each: left to the default split (a
 * chunk per set of entries that share a module), the client entry loaded 35 files. A layer's chunk takes the
 * modules it imports that no earlier layer took (the priorities go down the stack). Layers that import packages
 * (the server's ajv, OAuth's oauth4webapi and jose) keep the default split, so an entry loads a package only
 * with the modules that use it.
 */
const LAYERS = [
  ['protocol', /^(jsonrpc|mcp|util)\//],
  ['stdio', /^transports\/stdio\//],
  ['http-client', /^transports\/http\/(client\/[^/]+|header-values\.js)$/],
  ['client', /^client\//],
];

function layerGroups(dir) {
  return LAYERS.map(([name, pattern], index) => ({
    name,
    priority: LAYERS.length - index,
    test: (id) => pattern.test(relative(dir, id)),
  }));
}

function removeScripts(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeScripts(path);
    else if (entry.name.endsWith('.js')) rmSync(path);
  }
}

/**
 * Replaces the .js files tsc wrote to `dir` (a dist/ being built) with the bundled entries and chunks.
 * Shared chunks go to dist/chunks/: modules find package.json and examples/ by looking upwards
 * (src/util/package-root.ts), not at a fixed depth.
 */
export async function bundle(root, dir) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const build = await rolldown({
    input: entriesOf(manifest, dir),
    platform: 'node',
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
  });
  const { output } = await build.generate({
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    codeSplitting: { groups: layerGroups(dir) },
  });
  await build.close();
  removeScripts(dir);
  for (const file of output) {
    const path = join(dir, file.fileName);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.type === 'chunk' ? file.code : file.source);
  }
}
