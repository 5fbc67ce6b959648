/**
 * The version of agentforge, read once from its package.json. It is what clientInfo and the CLI report, so a
 * release changes one place.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

function readPackageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  const version = (manifest as { version?: unknown } | null)?.version;
  if (typeof version !== 'string' || version === '') {
    throw new Error('agentforge: package.json has no "version" string');
  }
  return version;
}

export const PACKAGE_VERSION: string = readPackageVersion();
