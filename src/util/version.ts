/**
 * The version of agentforge, read once from its package.json, which sits two levels above this module both in
 * the source tree (src/util/) and in the built package (dist/util/). It is what clientInfo and the CLI report,
 * so a release changes one place.
 */
import { readFileSync } from 'node:fs';

function readPackageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version = (manifest as { version?: unknown } | null)?.version;
  if (typeof version !== 'string' || version === '') {
    throw new Error('agentforge: package.json has no "version" string');
  }
  return version;
}

export const PACKAGE_VERSION: string = readPackageVersion();
