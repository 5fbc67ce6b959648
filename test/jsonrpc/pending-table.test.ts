import { describe, expect, it } from 'vitest';
import { type Pending, type RequestKind, RequestKinds } from '../../src/jsonrpc/pending.js';
import { PendingTable } from '../../src/jsonrpc/pending-table.js';

const kind = (method: string, startedAt = 7): RequestKind => ({
  method,
  options: undefined,
  tag: undefined,
  meta: undefined,
  startedAt,
});
const resolver =
  (log: unknown[], id: unknown): Pending['resolve'] =>
  (result) =>
    log.push([id, result]);

describe('PendingTable', () => {
  it('gives back what each request was added with, in the ring and out of it', () => {
    const table = new PendingTable();
    const log: unknown[] = [];
    const ids = [1, 2, 3, 'text-id', 0, 2 ** 40, 19];
    for (const id of ids) table.add(id, kind(`m${id}`), { n: id }, resolver(log, id));
    expect(table.size).toBe(ids.length);
    for (const id of ids) {
      const pending = table.get(id);
      expect(pending?.kind.method).toBe(`m${id}`);
      expect(pending?.sent).toEqual({ n: id });
      pending?.resolve({ ok: id });
    }
    expect(log).toEqual(ids.map((id) => [id, { ok: id }]));
    expect(table.keys()).toEqual([0, 1, 2, 3, 19, 2 ** 40, 'text-id']);
  });

  it('takes a request once, and keeps the text the transport wrote in place of the params', () => {
    const table = new PendingTable();
    const log: unknown[] = [];
    table.add(5, kind('tools/call'), { name: 'a' }, resolver(log, 5));
    table.add('s', kind('tools/call'), { name: 'b' }, resolver(log, 's'));
    table.setSent(5, '{"name":"a"}');
    table.setSent('s', '{"name":"b"}');
    table.setSent(99, 'ignored');
    expect(table.take(5)?.sent).toBe('{"name":"a"}');
    expect(table.take(5)).toBeUndefined();
    expect(table.take('s')?.sent).toBe('{"name":"b"}');
    expect(table.take('s')).toBeUndefined();
    expect(table.size).toBe(0);
  });

  it('holds 10,000 requests in flight around one sent long before, and empties', () => {
    const table = new PendingTable();
    const log: unknown[] = [];
    table.add(1, kind('subscriptions/listen', 1), {}, resolver(log, 1));
    for (let id = 2; id <= 10_001; id++)
      table.add(id, kind('tools/call', 9), `{"i":${id}}`, resolver(log, id));
    expect(table.size).toBe(10_001);
    for (let id = 10_001; id >= 2; id--) {
      const pending = table.take(id);
      expect(pending?.sent).toBe(`{"i":${id}}`);
      expect(pending?.kind.startedAt).toBe(9);
    }
    expect(table.keys()).toEqual([1]);
    expect(table.take(1)?.kind.method).toBe('subscriptions/listen');
    expect(table.size).toBe(0);
  });
});

describe('RequestKinds', () => {
  it('shares one kind between requests sent in the same ms alike, and makes another for a new ms', () => {
    const kinds = new RequestKinds();
    const options = { timeoutMs: 5 };
    const first = kinds.kindOf('tools/call', {}, options, undefined, 100);
    expect(kinds.kindOf('tools/call', { other: 1 }, options, undefined, 100)).toBe(first);
    const later = kinds.kindOf('tools/call', {}, options, undefined, 101);
    expect(later).not.toBe(first);
    expect(later.startedAt).toBe(101);
    expect(first.startedAt).toBe(100);
    expect(kinds.kindOf('tools/list', {}, options, undefined, 101)).not.toBe(later);
    expect(kinds.kindOf('tools/list', {}, undefined, undefined, 101).options).toBeUndefined();
  });
});
