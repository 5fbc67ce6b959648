/**
 * The package's root directory: the nearest directory above this module that holds a package.json. A module's
 * depth differs between the sources (src/util/) and the built package, whose modules are bundled into entry
 * files and shared chunks (dist/, dist/chunks/, dist/cli/), so the root is looked for, not counted.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; ) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`agentforge: no package.json above ${start}`);
    dir = parent;
  }
}
