import { describe, expect, it } from 'vitest';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { serialisedOnce, stringifyMessage, takeWrittenParams } from '../../src/jsonrpc/serialise.js';

const metaSource = () => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'client "one"', version: '1.0.0' },
});

const request = (params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params,
});

describe('stringifyMessage with a serialisedOnce _meta', () => {
  it('writes exactly what JSON.stringify writes, for requests and results', () => {
    const meta = serialisedOnce(metaSource());
    const params: Record<string, unknown> = { name: 'echo', arguments: { text: 'a\nb "c" \u2028' } };
    params._meta = meta;
    const message = request(params);
    expect(stringifyMessage(message)).toBe(JSON.stringify(message));
    const result = { jsonrpc: '2.0', id: 'x', result: { content: [], resultType: 'complete', _meta: meta } };
    expect(stringifyMessage(result)).toBe(JSON.stringify(result));
    // The holder is left as it was.
    expect(params._meta).toBe(meta);
  });

  it('is a deep copy, frozen: later changes to the source cannot make the text stale', () => {
    const source = metaSource();
    const meta = serialisedOnce(source);
    source['io.modelcontextprotocol/clientInfo'].name = 'changed';
    expect(Object.isFrozen(meta['io.modelcontextprotocol/clientInfo'])).toBe(true);
    const text = stringifyMessage(request({ name: 'echo', _meta: meta }));
    expect(JSON.parse(text).params._meta['io.modelcontextprotocol/clientInfo'].name).toBe('client "one"');
  });

  it('serialises whole a message where the shared _meta is not the last member', () => {
    const meta = serialisedOnce(metaSource());
    const first = request({ _meta: meta, name: 'echo' });
    expect(stringifyMessage(first)).toBe(JSON.stringify(first));
    const trailing = { jsonrpc: '2.0', id: 1, params: { _meta: meta }, method: 'tools/list' };
    expect(stringifyMessage(trailing)).toBe(JSON.stringify(trailing));
    const frozen = request(Object.freeze({ name: 'echo', _meta: meta }));
    expect(stringifyMessage(frozen)).toBe(JSON.stringify(frozen));
  });

  it('restores the holder when the rest of the message cannot be serialised', () => {
    const meta = serialisedOnce(metaSource());
    const params: Record<string, unknown> = { name: 'echo', arguments: { n: 1n } };
    params._meta = meta;
    expect(() => stringifyMessage(request(params))).toThrow(LocalError);
    expect(params._meta).toBe(meta);
  });
});

describe('stringifyMessage of a response whose result ends with a serialisedOnce _meta (spliced)', () => {
  const meta = serialisedOnce({ 'io.modelcontextprotocol/serverInfo': { name: 'srv "x"', version: '1' } });
  const response = (id: unknown, result: unknown): Record<string, unknown> => ({
    jsonrpc: '2.0',
    id,
    result,
  });
  const same = (message: unknown) => expect(stringifyMessage(message)).toBe(JSON.stringify(message));

  it('writes exactly what JSON.stringify writes', () => {
    same(
      response(3, {
        content: [{ type: 'text', text: 'a\nb "c" \u2028 \ud800' }],
        resultType: 'complete',
        _meta: meta,
      }),
    );
    same(response('id "q"', { resultType: 'complete', _meta: meta }));
    same(response(-0, { 2: 'two', 1: 'one', z: null, _meta: meta }));
    same(response(1.5, { structuredContent: 7, isError: false, nested: { when: new Date(0) }, _meta: meta }));
    // Members JSON leaves out, inside the object.
    same(
      response(4, {
        gone: undefined,
        fn: () => 1,
        sym: Symbol('s'),
        kept: [undefined, () => 1],
        _meta: meta,
      }),
    );
    same(response(6, { gone: undefined, _meta: meta }));
    same(response(7, { gone: undefined, kept: 1, fn: () => 1, also: 'x', _meta: meta }));
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, _meta: meta });
    same(response(5, bare));
    expect(JSON.parse(stringifyMessage(response(5, bare))).result._meta).toEqual(meta);
  });

  it('leaves to JSON.stringify what it cannot write member by member', () => {
    // A toJSON of a member is called with its name inside the object.
    const keyed = { toJSON: (key: string) => `called with ${key}` };
    same(response(1, { content: keyed, _meta: meta }));
    same(response(1, { when: new Date(0), _meta: meta }));
    same(response(1, { toJSON: () => ({ other: true }), _meta: meta }));
    same(response(1, Object.assign([1, 2], { _meta: meta })));
    same(response(1, Object.assign(Object.create({ inherited: 1 }), { a: 1, _meta: meta })));
    same(response(1, Object.assign(new (class Result {})(), { a: 1, _meta: meta })));
    same({ id: 1, jsonrpc: '2.0', result: { a: 1, _meta: meta } });
    same({ jsonrpc: '2.0', id: 1, result: { a: 1, _meta: meta }, extra: 1 });
    same({ jsonrpc: '1.0', id: 1, result: { a: 1, _meta: meta } });
    same(response(Number.NaN, { a: 1, _meta: meta }));
    same(response(1, { _meta: meta, a: 1 }));
    same(response(1, { a: 1, _meta: { ...meta } }));
  });

  it('answers an inexpressible member as JSON.stringify would fail on it', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const bad of [{ n: 1n }, circular]) {
      const text = stringifyMessage(response(9, { content: bad, _meta: meta }));
      expect(JSON.parse(text)).toMatchObject({ id: 9, error: { code: -32603 } });
    }
  });
});

describe('stringifyMessage: the same text as JSON.stringify for each envelope shape', () => {
  const meta = serialisedOnce(metaSource());
  const params = () => ({ name: 'echo', arguments: { text: 'a "quoted"\n line' }, _meta: meta });
  const result = () => ({ content: [{ type: 'text', text: 'é' }], _meta: meta });
  const inherited = Object.create({ extra: 1 }) as Record<string, unknown>;
  Object.assign(inherited, { jsonrpc: '2.0', id: 3, method: 'm', params: params() });
  const withToJSON = {
    jsonrpc: '2.0',
    id: 4,
    method: 'm',
    params: params(),
    toJSON: () => ({ swapped: true }),
  };
  Object.defineProperty(withToJSON, 'toJSON', { enumerable: false });
  const keyedParams = () => {
    const value = params() as Record<string, unknown>;
    Object.defineProperty(value, 'toJSON', {
      enumerable: false,
      value: (key: string) => ({ key, _meta: value._meta === null ? null : meta }),
    });
    return value;
  };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['a request', { jsonrpc: '2.0', id: 12345678, method: 'tools/call', params: params() }],
    ['params of only the shared _meta', { jsonrpc: '2.0', id: 8, method: 'm', params: { _meta: meta } }],
    ['a result of only the shared _meta', { jsonrpc: '2.0', id: 8, result: { _meta: meta } }],
    ['params without _meta', { jsonrpc: '2.0', id: 8, method: 'm', params: { a: [1, 'b'] } }],
    ['empty params', { jsonrpc: '2.0', id: 8, method: 'm', params: {} }],
    ['array params', { jsonrpc: '2.0', id: 8, method: 'm', params: [1, 2] }],
    ['a string id', { jsonrpc: '2.0', id: 'a "b"\u2028', method: 'tools/call', params: params() }],
    ['another method after the first', { jsonrpc: '2.0', id: 2, method: 'prompts/"get"', params: params() }],
    ['a response', { jsonrpc: '2.0', id: 9, result: result() }],
    ['a response with a string id', { jsonrpc: '2.0', id: 'x', result: result() }],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'm', params: params() }],
    ['an id past the safe integers', { jsonrpc: '2.0', id: 2 ** 60, method: 'm', params: params() }],
    ['a negative zero id', { jsonrpc: '2.0', id: -0, method: 'm', params: params() }],
    ['members in another order', { id: 5, jsonrpc: '2.0', method: 'm', params: params() }],
    ['a member more', { jsonrpc: '2.0', id: 5, method: 'm', extra: null, params: params() }],
    ['another version', { jsonrpc: '1.0', id: 5, method: 'm', params: params() }],
    ['an inherited enumerable member', inherited],
    ['a toJSON', withToJSON],
    [
      'params with a toJSON that reads its key',
      { jsonrpc: '2.0', id: 6, method: 'm', params: keyedParams() },
    ],
  ];
  for (const [name, message] of cases)
    it(`writes what JSON.stringify writes: ${name}`, () => {
      expect(stringifyMessage(message)).toBe(JSON.stringify(message));
    });
});

describe('takeWrittenParams: the params text of the request stringifyMessage last wrote', () => {
  const meta = serialisedOnce(metaSource());

  it('is the params less the shared _meta, once; the line holds the same text', () => {
    const params = { name: 'echo', arguments: { text: 'a "b"' }, _meta: meta };
    const line = stringifyMessage({ jsonrpc: '2.0', id: 3, method: 'tools/call', params });
    const text = takeWrittenParams();
    expect(text).toBe(JSON.stringify({ name: 'echo', arguments: { text: 'a "b"' } }));
    expect(line).toContain((text as string).slice(0, -1));
    expect(takeWrittenParams()).toBeUndefined();
  });

  it('is the whole params when the _meta is not the shared one or the params are frozen', () => {
    const own = { name: 'echo', _meta: { mine: true } };
    stringifyMessage({ jsonrpc: '2.0', id: 'q', method: 'm', params: own });
    expect(takeWrittenParams()).toBe(JSON.stringify(own));
    const frozen = Object.freeze({ name: 'echo', _meta: meta });
    stringifyMessage({ jsonrpc: '2.0', id: 4, method: 'm', params: frozen });
    expect(takeWrittenParams()).toBe(JSON.stringify(frozen));
  });

  it('is undefined after a message serialised whole, a response, or a failure', () => {
    stringifyMessage({ jsonrpc: '2.0', id: 1, method: 'm', params: { a: 1 } });
    stringifyMessage({ id: 1, jsonrpc: '2.0', method: 'm', params: { a: 1 } });
    expect(takeWrittenParams()).toBeUndefined();
    stringifyMessage({ jsonrpc: '2.0', id: 1, method: 'm', params: { a: 1 } });
    stringifyMessage({ jsonrpc: '2.0', id: 1, result: { a: 1 } });
    expect(takeWrittenParams()).toBeUndefined();
    stringifyMessage({ jsonrpc: '2.0', id: 1, method: 'm', params: { a: 1 } });
    expect(() => stringifyMessage({ jsonrpc: '2.0', id: 2, method: 'm', params: { n: 1n } })).toThrow(
      LocalError,
    );
    expect(takeWrittenParams()).toBeUndefined();
  });
});
