/**
 * MRTR rounds and result caching against raw 2026-07-28 peers on 127.0.0.1: what each retry carries on the
 * wire, the max total timeout over the host's handlers, and cache invalidation by change notifications.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { complete, json, sseEvent, waitFor, rawPeerScope } from './helpers.js';

const { serve, connect } = rawPeerScope();

const inputRequired = (id: unknown, extra: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'input_required', ...extra },
});

describe('MRTR retries', () => {
  it('retries with a new id, the original params plus inputResponses, and requestState as received', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'tools/list') return json(res, 200, complete(message.id, { tools: [] }));
      const round = server.seen.filter((s) => s.message.method === 'tools/call').length;
      if (round === 1) {
        return json(
          res,
          200,
          inputRequired(message.id, {
            requestState: 'opaque-1',
            inputRequests: {
              ask: {
                method: 'elicitation/create',
                params: { message: 'Sure?', requestedSchema: { type: 'object' } },
              },
              where: { method: 'roots/list' },
            },
          }),
        );
      }
      if (round === 2)
        return json(res, 200, inputRequired(message.id, { requestState: 'opaque-2', inputRequests: {} }));
      json(res, 200, complete(message.id, { content: [{ type: 'text', text: 'done' }] }));
    });
    const client = await connect(server.url, {
      handlers: {
        elicitation: () => ({ action: 'accept', content: { sure: true } }),
        roots: () => [{ uri: 'file:///w' }],
      },
    });
    await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    const rounds = server.seen.filter((s) => s.message.method === 'tools/call').map((s) => s.message);
    expect(new Set(rounds.map((r) => r.id)).size).toBe(3);
    const strip = (params: Record<string, unknown>) => {
      const { _meta, ...rest } = params;
      return rest;
    };
    expect(strip(rounds[0]?.params)).toEqual({ name: 'deploy', arguments: { env: 'prod' } });
    expect(strip(rounds[1]?.params)).toEqual({
      name: 'deploy',
      arguments: { env: 'prod' },
      requestState: 'opaque-1',
      inputResponses: {
        ask: { action: 'accept', content: { sure: true } },
        where: { roots: [{ uri: 'file:///w' }] },
      },
    });
    // Round 2 answered nothing: round 3 carries round 2's state, and none of round 1's responses.
    expect(strip(rounds[2]?.params)).toEqual({
      name: 'deploy',
      arguments: { env: 'prod' },
      requestState: 'opaque-2',
    });
  });

  it("every round carries the caller's own _meta and trace, after a version retry as well", async () => {
    const calls: Array<Record<string, unknown>> = [];
    const server = await serve((message, res) => {
      if (message.method !== 'tools/call') return json(res, 200, complete(message.id, { tools: [] }));
      calls.push(message.params);
      if (calls.length === 1) {
        const data = { supported: ['2026-07-28'], requested: '2026-07-28' };
        const error = { code: -32022, message: 'Unsupported protocol version', data };
        return json(res, 200, { jsonrpc: '2.0', id: message.id, error });
      }
      if (calls.length === 2) return json(res, 200, inputRequired(message.id, { requestState: 's1' }));
      json(res, 200, complete(message.id, { content: [{ type: 'text', text: 'done' }] }));
    });
    const client = await connect(server.url);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const params = { name: 'deploy', arguments: { env: 'prod' }, _meta: { 'example.com/ticket': 7 } };
    const result = await client.request('tools/call', params, { traceparent });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(calls).toHaveLength(3);
    for (const sent of calls) {
      expect(sent._meta).toMatchObject({
        'example.com/ticket': 7,
        traceparent,
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      });
      expect(sent).toMatchObject({ name: 'deploy', arguments: { env: 'prod' } });
    }
    expect(calls[2]?.requestState).toBe('s1');
    expect(calls[1]?.requestState).toBeUndefined();
    // A call with no `_meta` of its own: the round sends the client's `_meta` as the first round did.
    calls.length = 1;
    await client.callTool({ name: 'deploy', arguments: { env: 'dev' } });
    expect(calls).toHaveLength(3);
    expect(calls[2]?._meta).toEqual(calls[1]?._meta);
    expect(Object.keys(calls[2] ?? {}).sort()).toEqual(['_meta', 'arguments', 'name', 'requestState']);
  });

  it('the max total timeout bounds a host handler that never answers, and aborts its signal', async () => {
    const server = await serve((message, res) =>
      json(
        res,
        200,
        inputRequired(message.id, {
          inputRequests: { ask: { method: 'elicitation/create', params: { message: 'Hello?' } } },
        }),
      ),
    );
    let handlerSignal: AbortSignal | undefined;
    const client = await connect(server.url, {
      maxTotalTimeoutMs: 300,
      handlers: {
        elicitation: (_params, context) => {
          handlerSignal = context.signal;
          return new Promise(() => {});
        },
      },
    });
    const started = Date.now();
    await expect(client.callTool({ name: 'x', arguments: {} })).rejects.toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(handlerSignal?.aborted).toBe(true);
  });

  it("the caller's AbortSignal ends a call waiting on a host handler", async () => {
    const server = await serve((message, res) =>
      json(res, 200, inputRequired(message.id, { inputRequests: { s: { method: 'roots/list' } } })),
    );
    const client = await connect(server.url, { handlers: { roots: () => new Promise(() => {}) } });
    const controller = new AbortController();
    const pending = client.callTool({ name: 'x', arguments: {} }, { signal: controller.signal });
    await waitFor(() => server.seen.some((s) => s.message.method === 'tools/call'));
    setTimeout(() => controller.abort('stop'), 50);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('cache invalidation', () => {
  it('list_changed and resources/updated on a subscriptions/listen stream drop the cached results', async () => {
    let stream: ServerResponse | undefined;
    let listenId: unknown;
    const counts: Record<string, number> = {};
    const server = await serve((message, res) => {
      counts[message.method] = (counts[message.method] ?? 0) + 1;
      if (message.method === 'subscriptions/listen') {
        stream = res;
        listenId = message.id;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const meta = { 'io.modelcontextprotocol/subscriptionId': message.id };
        sseEvent(res, {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { _meta: meta, notifications: message.params.notifications },
        });
        return;
      }
      const fresh = { ttlMs: 60_000, cacheScope: 'private' };
      if (message.method === 'tools/list')
        return json(res, 200, complete(message.id, { tools: [], ...fresh }));
      json(res, 200, complete(message.id, { contents: [{ uri: message.params.uri, text: 't' }], ...fresh }));
    });
    const client = await connect(server.url);
    const notified: string[] = [];
    await client.subscribe({ toolsListChanged: true, resourceSubscriptions: ['x://a'] }, (n) =>
      notified.push(n.method),
    );
    for (let i = 0; i < 2; i++) {
      await client.listTools();
      await client.readResource({ uri: 'x://a' });
      await client.readResource({ uri: 'x://b' });
    }
    expect(counts).toMatchObject({ 'tools/list': 1, 'resources/read': 2 });
    const meta = { 'io.modelcontextprotocol/subscriptionId': listenId };
    if (!stream) throw new Error('no listen stream');
    sseEvent(stream, { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta } });
    sseEvent(stream, {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { _meta: meta, uri: 'x://a' },
    });
    await waitFor(() => notified.length === 2);
    await client.listTools();
    await client.readResource({ uri: 'x://a' });
    await client.readResource({ uri: 'x://b' });
    // The changed list and the updated resource were fetched again; the untouched resource still came from cache.
    expect(counts).toMatchObject({ 'tools/list': 2, 'resources/read': 3 });
  });
});
