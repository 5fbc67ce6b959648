import { describe, expect, it } from 'vitest';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { serialisedOnce, stringifyMessage } from '../../src/jsonrpc/serialise.js';

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
