/**
 * A few official conformance scenarios run against the compiled fixture (build/conformance/, built by the global
 * setup), so a regression shows up in `npm test` too. `npm run conformance:client` runs every scenario of both
 * requirement sets.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const localNode = join(root, 'node_modules', '.bin', 'node');
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

const scenarios = [
  ['request-metadata', '2026-07-28'],
  ['sep-2322-client-request-state', '2026-07-28'],
  ['http-custom-headers', '2026-07-28'],
  ['sse-retry', '2025-11-25'],
  ['elicitation-sep1034-client-defaults', '2025-11-25'],
] as const;

describe.runIf(existsSync(localNode) && existsSync(cli))('official conformance scenarios', () => {
  it.each(scenarios)(
    '%s at %s',
    (scenario, version) => {
      const result = spawnSync(
        localNode,
        [
          cli,
          'client',
          '--command',
          `${process.execPath} build/conformance/client-fixture.js`,
          '--scenario',
          scenario,
          '--spec-version',
          version,
        ],
        { cwd: root, encoding: 'utf8', timeout: 60_000 },
      );
      const output = `${result.stdout}${result.stderr}`;
      expect(output, output).toMatch(/OVERALL: PASSED/);
      expect(result.status).toBe(0);
    },
    70_000,
  );
});
