#!/usr/bin/env node
// `npm run build`: compiles the package (src/ -> dist/, what npm publishes) and the conformance fixtures
// (src/conformance/ -> build/conformance/, used by the tests and `npm run conformance:*`, never published),
// makes the CLI executable, and writes build/.build-stamp, which test/global-setup.ts compares with src/ to
// decide whether to rebuild. The fixtures' compile only emits (noCheck): `npm run typecheck` checks them with
// the rest. With --emit-on-error a type error only warns (tsc still emits): the test setup uses it, because
// `npm run typecheck` is the gate for types and the tests judge behaviour.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const emitOnError = process.argv.includes('--emit-on-error');

// Both outputs start empty, so a module deleted from src/ does not live on in the package.
for (const out of ['dist', join('build', 'conformance'), join('build', '.build-stamp')]) {
  rmSync(join(root, out), { recursive: true, force: true });
}
for (const project of ['tsconfig.build.json', 'tsconfig.conformance.json']) {
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  } catch {
    if (!emitOnError) process.exit(1);
    console.warn(`[build] tsc reported errors in ${project}; using the emitted output anyway`);
  }
}
// The CLI entry is the package's bin, so it must be executable.
chmodSync(join(root, 'dist', 'cli', 'main.js'), 0o755);
mkdirSync(join(root, 'build'), { recursive: true });
writeFileSync(join(root, 'build', '.build-stamp'), String(Date.now()));
