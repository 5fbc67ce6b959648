/** 2026-07-28 basic/patterns/subscriptions: subscriptions/listen streams. */
import { describe, expect, it } from 'vitest';
import type { JSONRPCNotification, JSONRPCResponse } from '../../src/jsonrpc/messages.js';
import { McpServer } from '../../src/server/index.js';
import { MODERN, modernError, modernMeta, statelessSeam, validateEmitted, waitFor } from './support.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

function open(server: McpServer, id: string | number, notifications: Record<string, unknown>) {
  const controller = new AbortController();
  const received: JSONRPCNotification[] = [];
  const done: Promise<JSONRPCResponse> = Promise.resolve(
    statelessSeam(server).handleStatelessRequest(
      { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications } },
      {
        signal: controller.signal,
        notify: (notification) => {
          validateEmitted(MODERN, notification);
          received.push(notification);
        },
      },
    ),
  );
  return { controller, received, done };
}

function makeServer(maxListens?: number): McpServer {
  const server = new McpServer({ name: 's', version: '1' }, maxListens === undefined ? {} : { maxListens });
  server.registerResource('config', 'file:///config.json', {}, (uri) => ({
    contents: [{ uri, text: '{}' }],
  }));
  return server;
}

describe('subscriptions/listen', () => {
  it('acknowledges first, then sends only the requested notifications, each tagged with the subscription id', async () => {
    const server = makeServer();
    const listen = open(server, 'listen-1', {
      toolsListChanged: true,
      resourceSubscriptions: ['file:///config.json'],
    });
    expect(listen.received[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { [SUBSCRIPTION_ID]: 'listen-1' },
        notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] },
      },
    });
    server.registerTool('new_tool', {}, () => ({ content: [] }));
    server.registerPrompt('new_prompt', {}, () => ({ messages: [] }));
    server.notifyResourceUpdated('file:///other.json');
    server.notifyResourceUpdated('file:///config.json');
    await waitFor(() => listen.received.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(listen.received.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'file:///config.json', _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
      },
    ]);
    listen.controller.abort();
    await listen.done;
  });

  it('coalesces many registrations in one tick into one list_changed', async () => {
    const server = makeServer();
    const listen = open(server, 7, { toolsListChanged: true });
    for (let i = 0; i < 50; i++) server.registerTool(`t${i}`, {}, () => ({ content: [] }));
    await waitFor(() => listen.received.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(listen.received.map((n) => n.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
    ]);
    listen.controller.abort();
    await listen.done;
  });

  it('ends gracefully on server close with a result that names the subscription', async () => {
    const server = makeServer();
    const listen = open(server, 3, { promptsListChanged: true });
    await server.close();
    const response = await listen.done;
    validateEmitted(MODERN, response, 'subscriptions/listen');
    expect(response).toMatchObject({
      id: 3,
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 3 } },
    });
  });

  it('caps concurrent listens and rejects a malformed filter', async () => {
    const server = makeServer(1);
    const first = open(server, 1, { toolsListChanged: true });
    const second = await open(server, 2, { toolsListChanged: true }).done;
    expect(second).toMatchObject({ id: 2, error: { code: -32600 } });
    first.controller.abort();
    await first.done;
    const third = open(server, 3, {});
    expect(third.received).toHaveLength(1);
    third.controller.abort();
    await third.done;
    expect((await modernError(server, 'subscriptions/listen', { notifications: 'all' })).code).toBe(-32602);
    expect(
      (await modernError(server, 'subscriptions/listen', { notifications: { resourceSubscriptions: [1] } }))
        .code,
    ).toBe(-32602);
  });
});
