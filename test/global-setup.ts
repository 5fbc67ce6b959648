/**
 * Builds dist/ (the package) and build/conformance/ (the fixtures) once before the suite when any source file
 * is newer than the last build: tests spawn real child processes and HTTP servers from the compiled output, as
 * users run it. The stamp lives in build/, outside the published dist/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

function builtAt(root: string): number {
  const outputs = [join(root, 'dist', 'index.js'), join(root, 'build', 'conformance', 'server-fixture.js')];
  if (!outputs.every((path) => existsSync(path))) return 0;
  try {
    return statSync(join(root, 'build', '.build-stamp')).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
  // The build's own scripts and the manifest (its exports are the bundle's entries) count as sources too.
  const inputs = ['scripts/build.mjs', 'scripts/bundle.mjs', 'package.json'].map(
    (file) => statSync(join(root, file)).mtimeMs,
  );
  if (builtAt(root) > Math.max(newestMtime(join(root, 'src')), ...inputs)) return;
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--emit-on-error'], {
    cwd: root,
    stdio: 'inherit',
  });
}
