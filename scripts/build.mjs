#!/usr/bin/env node
// `npm run build`: compiles the package (src/ -> dist/, what npm publishes) and the conformance fixtures
// (src/conformance/ -> build/conformance/, used by the tests and `npm run conformance:*`, never published),
// makes the CLI executable, and writes build/.build-stamp, which test/global-setup.ts compares with src/ to
// decide whether to rebuild. The fixtures' compile only emits (noCheck): `npm run typecheck` checks them with
// the rest. With --emit-on-error a type error only warns (tsc still emits): the test setup uses it, because
// `npm run typecheck` is the gate for types and the tests judge behaviour.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const emitOnError = process.argv.includes('--emit-on-error');

// Each output is compiled into a fresh directory beside it, then swapped in with two renames: a module deleted
// from src/ does not live on in the package, and a test process reading dist/ while another process rebuilds
// it never finds the directory missing or half-written.
const outputs = [
  { project: 'tsconfig.build.json', out: 'dist' },
  { project: 'tsconfig.conformance.json', out: 'build' },
];
rmSync(join(root, 'build', '.build-stamp'), { force: true });
for (const { project, out } of outputs) {
  const next = join(root, `${out}.next`);
  rmSync(next, { recursive: true, force: true });
  try {
    execFileSync(process.execPath, [tsc, '-p', project, '--outDir', next], { cwd: root, stdio: 'inherit' });
  } catch {
    if (!emitOnError) process.exit(1);
    console.warn(`[build] tsc reported errors in ${project}; using the emitted output anyway`);
  }
  if (out === 'dist') await bundle(root, next);
  const current = join(root, out);
  const old = join(root, `${out}.old`);
  rmSync(old, { recursive: true, force: true });
  mkdirSync(dirname(current), { recursive: true });
  try {
    renameSync(current, old);
  } catch {
    // First build: nothing to move aside.
  }
  renameSync(next, current);
  rmSync(old, { recursive: true, force: true });
}
// The CLI entry is the package's bin, so it must be executable.
chmodSync(join(root, 'dist', 'cli', 'main.js'), 0o755);
mkdirSync(join(root, 'build'), { recursive: true });
writeFileSync(join(root, 'build', '.build-stamp'), String(Date.now()));
