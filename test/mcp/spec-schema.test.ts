import { describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/index.js';
import { validateAgainstSpec } from '../support/schema.js';

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
