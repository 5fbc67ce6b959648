/**
 * The built package is bundled per entry (scripts/bundle.mjs): whichever subpath a user imports a class or a
 * function from, it is the same object, so `instanceof` and identity checks hold across entries. Checked in a
 * child process on dist/, as a user imports it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

interface Shared {
  entries: number;
  pairs: number;
  differing: string[];
}

/**
 * Imports every export target and lists each name that two entries export as two copies of one declaration.
 * A name may stand for different functions by design (`createFetchHandler` of agentforge/server takes an
 * McpServer, that of agentforge/transports/http the transport's seam), so copies are told by their code.
 */
function sharedNames(): Shared {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  const targets = Object.entries(manifest.exports).map(([subpath, entry]) => [
    subpath,
    join(ROOT, entry.default),
  ]);
  const script = `
    const targets = JSON.parse(process.env.TARGETS);
    // Two copies of one declaration: the same code (or the same data), not the same object.
    const sameCode = (a, b) =>
      typeof a === 'function' ? typeof b === 'function' && String(a) === String(b) : JSON.stringify(a) === JSON.stringify(b);
    const modules = await Promise.all(targets.map(async ([subpath, file]) => [subpath, await import(file)]));
    const firstSeen = new Map();
    let pairs = 0;
    const differing = [];
    for (const [subpath, module] of modules) {
      for (const [name, value] of Object.entries(module)) {
        const seen = firstSeen.get(name);
        if (!seen) { firstSeen.set(name, [subpath, value]); continue; }
        pairs++;
        if (seen[1] !== value && sameCode(seen[1], value)) differing.push(name + ': ' + seen[0] + ' and ' + subpath);
      }
    }
    process.stdout.write(JSON.stringify({ entries: modules.length, pairs, differing }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { TARGETS: JSON.stringify(targets) },
  });
  return JSON.parse(out) as Shared;
}

describe('the bundled package', () => {
  it('gives one object, not copies, for a declaration that several entries export', () => {
    const shared = sharedNames();
    expect(shared.entries).toBeGreaterThan(10);
    // The root entry re-exports the layers' names, so many are exported twice.
    expect(shared.pairs).toBeGreaterThan(10);
    expect(shared.differing).toEqual([]);
  });
});
