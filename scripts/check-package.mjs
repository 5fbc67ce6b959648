#!/usr/bin/env node
// `npm run check:package` (CI, after `npm run build`): packs the package as npm would publish it and checks
// what a user receives. 1. The file list: the compiled library, its types, the bundled examples the demo runs,
// README and LICENSE; no conformance fixtures, build stamp, source maps or sources. 2. publint (package.json
// against the files) and Are the Types Wrong (every subpath export resolves to types, ESM-only profile: the
// package has no CommonJS entry). 3. The unpacked tarball works on its own: every export imports, the bin
// prints package.json's version, and `agentforge demo` runs its bundled servers end to end.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'agentforge-package-'));
const problems = [];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

function checkFiles(files) {
  const required = ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts'];
  required.push(...Object.values(manifest.bin), 'examples/weather/server.mjs');
  for (const path of required)
    if (!files.includes(path.replace(/^\.\//, ''))) problems.push(`missing ${path}`);
  for (const entry of Object.values(manifest.exports)) {
    for (const path of Object.values(entry)) {
      if (!files.includes(path.replace(/^\.\//, ''))) problems.push(`export target ${path} is not packed`);
    }
  }
  const unwanted = [
    [/^dist\/conformance\//, 'conformance fixtures'],
    [/\.build-stamp$/, 'a build stamp'],
    [/\.map$/, 'a source map'],
    [/^(src|test|bench|spec|scripts|build)\//, 'a development file'],
    [/\.ts$/, 'a TypeScript source'],
  ];
  for (const path of files) {
    if (path.endsWith('.d.ts')) continue;
    const hit = unwanted.find(([pattern]) => pattern.test(path));
    if (hit) problems.push(`packs ${hit[1]}: ${path}`);
  }
}

/** Unpacks the tarball as node_modules/agentforge next to links to the installed dependencies. */
function install(tarball) {
  const modules = join(work, 'node_modules');
  mkdirSync(join(modules, 'agentforge'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'agentforge'), '--strip-components=1']);
  // Optional peers too (@opentelemetry/api for agentforge/otel, ioredis for agentforge/redis): a user of
  // those entries installs them.
  const linked = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ];
  for (const dependency of linked) {
    mkdirSync(dirname(join(modules, dependency)), { recursive: true });
    symlinkSync(join(root, 'node_modules', dependency), join(modules, dependency), 'dir');
  }
  return join(modules, 'agentforge');
}

function checkInstalled(installed) {
  const specifiers = Object.keys(manifest.exports).map((key) => `agentforge${key.slice(1)}`);
  const probe = join(work, 'imports.mjs');
  writeFileSync(
    probe,
    `for (const s of ${JSON.stringify(specifiers)}) {\n` +
      '  const m = await import(s);\n' +
      "  if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing');\n}\n",
  );
  const imported = run(process.execPath, [probe], { cwd: work });
  if (imported.status !== 0) problems.push(`importing the exports failed:\n${imported.output}`);
  const bin = join(installed, manifest.bin.agentforge);
  const version = run(process.execPath, [bin, '--version'], { cwd: work });
  if (version.output !== `${manifest.version}\n`) problems.push(`--version printed ${version.output}`);
  // No model configured and no Ollama (port 9 refuses): the offline demo model drives the loop.
  const env = { PATH: process.env.PATH ?? '', OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1' };
  const demo = run(process.execPath, [bin, 'demo'], { cwd: work, env, timeout: 60_000 });
  if (demo.status !== 0 || !demo.output.includes('[answer]')) {
    problems.push(`the installed demo failed (exit ${demo.status}):\n${demo.output}`);
  }
}

try {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root }),
  );
  const { filename, files, size, unpackedSize } = packed[0];
  const paths = files.map((file) => file.path);
  console.log(`packed ${filename}: ${paths.length} files, ${size} bytes (${unpackedSize} unpacked)`);
  checkFiles(paths);
  const tarball = join(work, filename);
  const publint = run(join(root, 'node_modules', '.bin', 'publint'), ['run', tarball, '--strict']);
  console.log(publint.output.trim());
  if (publint.status !== 0) problems.push('publint reported problems');
  const attw = run(join(root, 'node_modules', '.bin', 'attw'), [
    tarball,
    '--profile',
    'esm-only',
    '--format',
    'table-flipped',
    '--no-emoji',
    '--no-color',
  ]);
  console.log(attw.output.trim());
  if (attw.status !== 0) problems.push('Are the Types Wrong reported problems');
  checkInstalled(install(tarball));
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`\nThe package is not right:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('\nThe package ships what a user needs, and it works unpacked on its own.');
