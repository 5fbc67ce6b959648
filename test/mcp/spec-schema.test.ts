import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/index.js';
import { SPEC_DIR, validateAgainstSpec } from '../support/schema.js';

interface ProvenanceRow {
  revision: string;
  blob: string;
  sha256: string;
}

/** The rows of spec/README.md's table: revision, last upstream commit, git blob id, sha256. */
function provenance(): ProvenanceRow[] {
  const readme = readFileSync(join(SPEC_DIR, 'README.md'), 'utf8');
  const row = /^\| (\d{4}-\d{2}-\d{2}) \| `[0-9a-f]{40}` \| `([0-9a-f]{40})` \| `([0-9a-f]{64})` \|$/gm;
  return [...readme.matchAll(row)].map((m) => ({ revision: m[1]!, blob: m[2]!, sha256: m[3]! }));
}

/** What `git hash-object` prints: SHA-1 over "blob <size>\0" and the bytes, the id upstream's tree holds. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

describe('spec/ carries the upstream schemas spec/README.md names', () => {
  const rows = provenance();

  it('has one row per supported revision and one schema directory per row', () => {
    const directories = readdirSync(SPEC_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(rows.map((r) => r.revision).sort()).toEqual([...SUPPORTED_PROTOCOL_VERSIONS].sort());
    expect(directories.sort()).toEqual([...SUPPORTED_PROTOCOL_VERSIONS].sort());
  });

  for (const { revision, blob, sha256 } of rows) {
    it(`${revision}/schema.json is byte for byte the file README names`, () => {
      const bytes = readFileSync(join(SPEC_DIR, revision, 'schema.json'));
      expect(gitBlobId(bytes)).toBe(blob);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(sha256);
    });
  }

  it('computes the blob id git does', () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitBlobId(Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });
});

describe('spec schemas load for every supported revision', () => {
  for (const revision of SUPPORTED_PROTOCOL_VERSIONS) {
    it(`${revision}: a request validates and a malformed one does not`, () => {
      const defName = 'JSONRPCRequest';
      expect(
        validateAgainstSpec(revision, defName, { jsonrpc: '2.0', id: 1, method: 'ping' }),
      ).toBeUndefined();
      expect(validateAgainstSpec(revision, defName, { jsonrpc: '1.0', id: 1, method: 'ping' })).toBeDefined();
    });
  }
});
