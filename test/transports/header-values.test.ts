import { describe, expect, it } from 'vitest';
import {
  copyTraceHeaders,
  decodeHeaderValue,
  encodeHeaderValue,
  scanParamHeaders,
  valueAtPath,
} from '../../src/transports/http/header-values.js';

describe('Mcp-Param value encoding (2026-07-28 streamable-http: Value Encoding)', () => {
  it('matches the examples of the specification', () => {
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('line1\nline2')).toBe('=?base64?bGluZTEKbGluZTI=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  it('round-trips and rejects malformed encodings', () => {
    for (const value of ['plain', 'Hello, 世界', ' x ', 'a\r\nb', '=?base64?x?=']) {
      expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
    }
    expect(decodeHeaderValue('=?base64?not base64!?=')).toBeUndefined();
    expect(decodeHeaderValue('caf\u00e9')).toBeUndefined();
  });
});

describe('x-mcp-header declarations', () => {
  it('accepts statically reachable primitive properties', () => {
    const scan = scanParamHeaders({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        nested: { type: 'object', properties: { id: { type: 'integer', 'x-mcp-header': 'Item-Id' } } },
      },
    });
    expect(scan).toEqual({
      ok: true,
      headers: [
        { name: 'Region', path: ['region'], type: 'string' },
        { name: 'Item-Id', path: ['nested', 'id'], type: 'integer' },
      ],
    });
    expect(valueAtPath({ nested: { id: 4 } }, ['nested', 'id'])).toBe(4);
    expect(valueAtPath({ nested: null }, ['nested', 'id'])).toBeUndefined();
  });

  it('rejects duplicates, numbers, bad tokens and annotations behind items or anyOf', () => {
    const bad = [
      { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } },
      { a: { type: 'number', 'x-mcp-header': 'N' } },
      { a: { type: 'string', 'x-mcp-header': 'Bad Name' } },
      { a: { type: 'string', 'x-mcp-header': '' } },
      { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } },
      { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'Choice' }] } },
    ];
    for (const properties of bad) expect(scanParamHeaders({ type: 'object', properties }).ok).toBe(false);
  });
});

describe('W3C trace headers from _meta', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('copies traceparent, tracestate and baggage, and nothing without a traceparent', () => {
    const headers: Record<string, unknown> = {};
    copyTraceHeaders(
      { traceparent, tracestate: 'congo=t61rcWkgMzE', baggage: 'user=ada', other: 'x' },
      headers,
    );
    expect(headers).toEqual({ traceparent, tracestate: 'congo=t61rcWkgMzE', baggage: 'user=ada' });
    const none: Record<string, unknown> = {};
    copyTraceHeaders({ tracestate: 'congo=t61rcWkgMzE' }, none);
    copyTraceHeaders(undefined, none);
    copyTraceHeaders('traceparent', none);
    expect(none).toEqual({});
  });

  it('never lets a value that could split or bloat a header through', () => {
    const headers: Record<string, unknown> = {};
    copyTraceHeaders(
      { traceparent, tracestate: 'a=b\r\nx-injected: 1', baggage: `k=${'v'.repeat(9000)}` },
      headers,
    );
    expect(headers).toEqual({ traceparent });
    const bad: Record<string, unknown> = {};
    copyTraceHeaders({ traceparent: 42 }, bad);
    copyTraceHeaders({ traceparent: 'caf\u00e9' }, bad);
    expect(bad).toEqual({});
  });
});
