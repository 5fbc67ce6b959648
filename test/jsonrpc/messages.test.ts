import { describe, expect, it } from 'vitest';
import { ErrorCode, LocalError, RpcError, classify, toWireError } from '../../src/jsonrpc/index.js';
import { kindOf } from '../../src/jsonrpc/messages.js';

describe('classify: messages by shape', () => {
  it('tells requests, notifications, results and errors apart', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind).toBe('request');
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind).toBe('notification');
    expect(classify({ jsonrpc: '2.0', id: 'a', result: {} }).kind).toBe('result');
    expect(classify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }).kind).toBe(
      'error',
    );
  });

  it('rejects what JSON-RPC 2.0 and MCP forbid', () => {
    const invalid = (value: unknown) => classify(value);
    expect(invalid([{ jsonrpc: '2.0', id: 1, method: 'ping' }])).toMatchObject({ kind: 'invalid' }); // batch
    expect(invalid({ jsonrpc: '2.0', id: null, method: 'ping' })).toMatchObject({ kind: 'invalid' }); // null id
    expect(invalid({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toMatchObject({ kind: 'invalid' });
    expect(invalid({ jsonrpc: '1.0', id: 1, method: 'ping' })).toMatchObject({ kind: 'invalid', id: 1 });
    expect(invalid({ jsonrpc: '2.0', id: 1, method: 'x', params: [1] })).toMatchObject({
      kind: 'invalid',
      id: 1,
    });
    expect(invalid({ jsonrpc: '2.0', id: 1, error: { code: 'x' } })).toMatchObject({ kind: 'invalid' });
    expect(invalid({ jsonrpc: '2.0', id: 1 })).toMatchObject({ kind: 'invalid' });
    expect(invalid('text')).toMatchObject({ kind: 'invalid', id: null });
  });
});

describe('kindOf: the kind alone', () => {
  it("names a valid message's kind as classify does, and gives the same reason for an invalid one", () => {
    const values: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: 1, result: 'x' },
      { jsonrpc: '2.0', id: 1, method: 'x', params: [1] },
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1 },
      'text',
    ];
    for (const value of values) {
      const classified = classify(value);
      const kind = kindOf(value);
      if (typeof kind === 'string') expect(classified).toEqual({ kind, message: value });
      else expect(kind).toEqual(classified);
    }
    expect(values.map((value) => kindOf(value)).filter((kind) => typeof kind === 'string')).toEqual([
      'request',
      'notification',
      'result',
      'error',
    ]);
  });
});

describe('errors', () => {
  it('keeps wire errors, hides everything else behind -32603 without stacks', () => {
    expect(toWireError(new RpcError(-32602, 'bad', { field: 'x' }))).toEqual({
      code: -32602,
      message: 'bad',
      data: { field: 'x' },
    });
    const secret = new Error('boom');
    secret.stack = 'Error: boom\n    at secret (/srv/app.js:1:1)';
    expect(toWireError(secret)).toEqual({ code: ErrorCode.InternalError, message: 'boom' });
    expect(toWireError(undefined)).toEqual({ code: ErrorCode.InternalError, message: 'Internal error' });
    expect(toWireError(new LocalError('timeout', 'upstream timed out'))).toEqual({
      code: -32603,
      message: 'upstream timed out',
    });
  });
});
