/**
 * Builds dist/ once before the suite when any source file is newer than the last build: tests spawn real
 * child processes and HTTP servers from the compiled output, as users run it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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

export default function setup(): void {
  const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
  let built = 0;
  try {
    built = statSync(join(root, 'dist', '.build-stamp')).mtimeMs;
  } catch {
    built = 0;
  }
  if (built > newestMtime(join(root, 'src'))) return;
  try {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
  } catch {
    // tsc still emits on type errors; `npm run typecheck` is the gate for those, tests judge behaviour.
    console.warn('[global-setup] tsc reported errors; testing the emitted output anyway');
  }
  // As `npm run build` does: the CLI entry is the package's bin, so it must be executable.
  chmodSync(join(root, 'dist', 'cli', 'main.js'), 0o755);
  writeFileSync(join(root, 'dist', '.build-stamp'), String(Date.now()));
}
