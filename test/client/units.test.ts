/** The client's pure pieces: cache rules, modern-error recognition, elicitation defaults, header mirroring. */
import { describe, expect, it } from 'vitest';
import { ResultCache } from '../../src/client/cache.js';
import { withElicitationDefaults } from '../../src/client/input.js';
import { isModernError, pickStatelessVersion } from '../../src/client/stateless.js';
import { ToolHeaderRegistry } from '../../src/transports/http/client/tool-headers.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { silentLogger } from '../../src/util/logger.js';

describe('ResultCache', () => {
  it('stores only complete results with a positive ttl, keyed without _meta', () => {
    const cache = new ResultCache();
    const key = ResultCache.key('s', 'tools/list', { cursor: 'a', _meta: { x: 1 } });
    expect(key).toBe(ResultCache.key('s', 'tools/list', { cursor: 'a' }));
    expect(cache.store(key, { tools: [], ttlMs: 0 })).toBe(false);
    expect(cache.store(key, { tools: [], ttlMs: -5 })).toBe(false);
    expect(cache.store(key, { tools: [] })).toBe(false);
    expect(cache.store(key, { resultType: 'input_required', ttlMs: 100 })).toBe(false);
    expect(cache.store(key, { tools: [], ttlMs: 1000, cacheScope: 'private' })).toBe(true);
    expect(cache.get(key)).toEqual({ tools: [], ttlMs: 1000, cacheScope: 'private' });
  });

  it('a shared cache never stores private results', () => {
    const shared = new ResultCache({ shared: true });
    expect(shared.store('k1', { ttlMs: 1000, cacheScope: 'private' })).toBe(false);
    expect(shared.store('k2', { ttlMs: 1000 })).toBe(false);
    expect(shared.store('k3', { ttlMs: 1000, cacheScope: 'public' })).toBe(true);
  });

  it('expires entries and invalidates per method or per key', async () => {
    const cache = new ResultCache();
    cache.store(ResultCache.key('s', 'tools/list', undefined), { ttlMs: 20 });
    cache.store(ResultCache.key('s', 'tools/list', { cursor: '2' }), { ttlMs: 10_000 });
    cache.store(ResultCache.key('s', 'resources/read', { uri: 'a://1' }), { ttlMs: 10_000 });
    cache.store(ResultCache.key('s', 'resources/read', { uri: 'a://2' }), { ttlMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(cache.get(ResultCache.key('s', 'tools/list', undefined))).toBeUndefined();
    cache.invalidate('s', 'tools/list');
    expect(cache.get(ResultCache.key('s', 'tools/list', { cursor: '2' }))).toBeUndefined();
    cache.invalidate('s', 'resources/read', { uri: 'a://1' });
    expect(cache.get(ResultCache.key('s', 'resources/read', { uri: 'a://1' }))).toBeUndefined();
    expect(cache.get(ResultCache.key('s', 'resources/read', { uri: 'a://2' }))).toBeDefined();
  });
});

describe('era signals', () => {
  it('recognises modern errors and nothing else', () => {
    expect(
      isModernError(new RpcError(-32022, 'Unsupported protocol version', { supported: ['2026-07-28'] })),
    ).toBe(true);
    expect(isModernError(new RpcError(-32020, 'Header mismatch'))).toBe(true);
    expect(isModernError(new RpcError(-32021, 'Missing required client capability'))).toBe(true);
    expect(isModernError(new RpcError(-32602, 'Invalid params: missing _meta keys'))).toBe(true);
    expect(isModernError(new RpcError(-32602, 'Invalid params: server not initialized'))).toBe(false);
    expect(isModernError(new RpcError(-32601, 'Method not found'))).toBe(false);
    expect(isModernError(new RpcError(-32000, 'Bad Request: No valid session ID provided'))).toBe(false);
    expect(isModernError(new Error('x'))).toBe(false);
  });

  it('picks the newest mutually supported stateless version', () => {
    expect(pickStatelessVersion(['2025-11-25', '2026-07-28'])).toBe('2026-07-28');
    expect(pickStatelessVersion(['2025-11-25'])).toBeUndefined();
    expect(pickStatelessVersion('2026-07-28')).toBeUndefined();
  });
});

describe('elicitation defaults (SEP-1034)', () => {
  const request = {
    message: 'm',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', default: 'Ada' },
        age: { type: 'integer', default: 3 },
        note: { type: 'string' },
      },
    },
  };
  it('fills omitted fields of an accepted form from the schema defaults', () => {
    expect(withElicitationDefaults(request, { action: 'accept', content: { age: 40 } })).toEqual({
      action: 'accept',
      content: { age: 40, name: 'Ada' },
    });
  });
  it('leaves declined answers alone', () => {
    expect(withElicitationDefaults(request, { action: 'decline' })).toEqual({ action: 'decline' });
  });
});

describe('ToolHeaderRegistry', () => {
  const registry = new ToolHeaderRegistry();
  const tools = registry.filter(
    [
      {
        name: 'ok',
        inputSchema: {
          type: 'object',
          properties: {
            q: { type: 'string', 'x-mcp-header': 'Q' },
            flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
          },
        },
      },
      {
        name: 'dup',
        inputSchema: {
          type: 'object',
          properties: {
            a: { type: 'string', 'x-mcp-header': 'A' },
            b: { type: 'string', 'x-mcp-header': 'a' },
          },
        },
      },
    ],
    silentLogger,
  );
  it('drops tools with invalid declarations and keeps the rest', () => {
    expect(tools.map((t) => t.name)).toEqual(['ok']);
  });
  it('mirrors values, encoding unsafe ones and omitting null', () => {
    const headers = registry.headersFor({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ok', arguments: { q: 'line1\nline2', flag: null } },
    });
    expect(headers).toEqual({
      'mcp-param-q': `=?base64?${Buffer.from('line1\nline2').toString('base64')}?=`,
    });
    expect(
      registry.headersFor({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ok', arguments: { flag: false } },
      }),
    ).toEqual({
      'mcp-param-flag': 'false',
    });
  });
});
