import { describe, expect, it } from 'vitest';
import { RpcError } from '../../src/jsonrpc/index.js';
import {
  McpErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  allowsBatches,
  eraOf,
  isResourceNotFound,
  missingRequiredClientCapability,
  negotiateHandshakeVersion,
  readResultType,
  resourceNotFound,
  unsupportedProtocolVersion,
} from '../../src/mcp/index.js';
import { expectValid } from '../support/schema.js';

describe('revisions', () => {
  it('lists every revision newest first and tells their era', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect(eraOf('2026-07-28')).toBe('stateless');
    expect(eraOf('2025-11-25')).toBe('handshake');
    expect(eraOf('2024-11-05')).toBe('handshake');
    expect(allowsBatches('2025-03-26')).toBe(true);
    expect(allowsBatches('2025-06-18')).toBe(false);
  });

  it('negotiates the handshake version', () => {
    expect(negotiateHandshakeVersion('2025-03-26')).toBe('2025-03-26');
    expect(negotiateHandshakeVersion('2099-01-01')).toBe('2025-11-25');
    expect(negotiateHandshakeVersion('2026-07-28')).toBe('2025-11-25');
  });
});

describe('resultType', () => {
  it('treats a missing resultType as complete and an unknown one as invalid', () => {
    expect(readResultType({ content: [] })).toBe('complete');
    expect(readResultType({ resultType: 'complete' })).toBe('complete');
    expect(readResultType({ resultType: 'input_required' })).toBe('input_required');
    expect(() => readResultType({ resultType: 'partial' })).toThrow(/unknown resultType/);
  });
});

describe('MCP error constructors match the 2026-07-28 schema', () => {
  const response = (error: RpcError) => ({ jsonrpc: '2.0', id: 1, error: error.toJSON() });
  it('HeaderMismatch, MissingRequiredClientCapability, UnsupportedProtocolVersion', () => {
    expectValid(
      '2026-07-28',
      'HeaderMismatchError',
      response(new RpcError(McpErrorCode.HeaderMismatch, 'x')),
    );
    expectValid(
      '2026-07-28',
      'MissingRequiredClientCapabilityError',
      response(missingRequiredClientCapability({ elicitation: {} })),
    );
    expectValid(
      '2026-07-28',
      'UnsupportedProtocolVersionError',
      response(unsupportedProtocolVersion('2099-01-01', SUPPORTED_PROTOCOL_VERSIONS)),
    );
  });

  it('recognises resource-not-found in its current and legacy forms', () => {
    expect(isResourceNotFound(resourceNotFound('file:///x'))).toBe(true);
    expect(isResourceNotFound(new RpcError(-32002, 'Resource not found'))).toBe(true);
    expect(isResourceNotFound(new RpcError(-32602, 'bad cursor'))).toBe(false);
  });
});
