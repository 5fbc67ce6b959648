/** The package's version, read from package.json at run time (so a release never prints a stale one). */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  // dist/cli/version.js and src/cli/version.ts both sit two levels below the package root.
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}
