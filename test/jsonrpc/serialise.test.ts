import { describe, expect, it } from 'vitest';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { serialisedOnce, serialisedWith, stringifyMessage } from '../../src/jsonrpc/serialise.js';

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

describe("serialisedWith: a serialisedOnce _meta with a request's trace added", () => {
  const trace = {
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    tracestate: 'vendor=a"b',
  };

  it('writes exactly what JSON.stringify writes, the shared text spliced in', () => {
    const meta = serialisedWith(serialisedOnce(metaSource()), trace);
    expect(Object.isFrozen(meta)).toBe(true);
    expect(meta).toEqual({ ...metaSource(), ...trace });
    const params: Record<string, unknown> = { name: 'echo', arguments: { text: 'hi' } };
    params._meta = meta;
    const message = request(params);
    expect(stringifyMessage(message)).toBe(JSON.stringify(message));
  });

  it('adds to an empty base, and gives the base itself when nothing is added', () => {
    const empty = serialisedOnce({});
    const traced = request({ name: 'echo', _meta: serialisedWith(empty, trace) });
    expect(stringifyMessage(traced)).toBe(JSON.stringify(traced));
    expect(serialisedWith(empty, {})).toBe(empty);
  });

  it('a member the base has already, or a base never serialised, makes a plain copy', () => {
    const base = serialisedOnce({ traceparent: 'old', other: 1 });
    const overriding = serialisedWith(base, { traceparent: trace.traceparent });
    expect(overriding).toEqual({ traceparent: trace.traceparent, other: 1 });
    expect(Object.isFrozen(overriding)).toBe(false);
    const message = request({ name: 'echo', _meta: overriding });
    expect(JSON.parse(stringifyMessage(message)).params._meta.traceparent).toBe(trace.traceparent);
    const plain = serialisedWith({ a: 1 }, trace);
    expect(plain).toEqual({ a: 1, ...trace });
    expect(Object.isFrozen(plain)).toBe(false);
  });
});
