/** serve(transport): both eras on one message channel, routed by shape (what stdio does), in memory. */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/messages.js';
import { mcpHooks } from '../../src/mcp/hooks.js';
import { McpServer } from '../../src/server/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { modernMeta, waitFor } from './support.js';

async function pair() {
  const server = new McpServer({ name: 'dual', version: '1' });
  server.registerTool('hello', {}, () => ({ content: [{ type: 'text', text: 'hi' }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const wire: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = async (message: JSONRPCMessage) => {
    wire.push(message);
    return send(message);
  };
  const session = await server.serve(serverSide);
  const connection = new Connection(clientSide, { hooks: mcpHooks });
  await connection.start();
  return { server, session, connection, wire };
}

describe('serve(transport)', () => {
  it('answers stateless requests and a handshake session on the same channel', async () => {
    const { connection, session } = await pair();
    try {
      const modern = await connection.request('tools/call', {
        name: 'hello',
        arguments: {},
        _meta: modernMeta(),
      });
      expect(modern).toMatchObject({ resultType: 'complete', content: [{ text: 'hi' }] });
      await expect(connection.request('tools/list')).rejects.toMatchObject({ code: -32600 });
      await connection.request('initialize', {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      });
      await connection.notify('notifications/initialized');
      const legacy = await connection.request('tools/call', { name: 'hello', arguments: {} });
      expect(legacy).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    } finally {
      await connection.close();
      await session.close();
    }
  });

  it('runs subscriptions/listen until the client cancels it, then sends no response', async () => {
    const { server, connection, session, wire } = await pair();
    try {
      const controller = new AbortController();
      const listen = connection.request(
        'subscriptions/listen',
        { _meta: modernMeta(), notifications: { toolsListChanged: true } },
        { signal: controller.signal },
      );
      await waitFor(() =>
        wire.some((m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged'),
      );
      server.registerTool('added', {}, () => ({ content: [] }));
      await waitFor(() => wire.some((m) => 'method' in m && m.method === 'notifications/tools/list_changed'));
      const changed = wire.find((m) => 'method' in m && m.method === 'notifications/tools/list_changed');
      const ack = wire.find((m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged');
      expect(wire.indexOf(ack as JSONRPCMessage)).toBeLessThan(wire.indexOf(changed as JSONRPCMessage));
      const listenId = (ack as unknown as { params: { _meta: Record<string, unknown> } }).params._meta[
        'io.modelcontextprotocol/subscriptionId'
      ];
      expect(changed).toMatchObject({
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': listenId } },
      });
      controller.abort();
      await expect(listen).rejects.toMatchObject({ code: 'cancelled' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(wire.some((m) => 'id' in m && m.id === listenId && !('method' in m))).toBe(false);
    } finally {
      await connection.close();
      await session.close();
    }
  });

  it('holds an id while its request runs, and frees it once the response is out', async () => {
    const server = new McpServer({ name: 'dual', version: '1' });
    const held: Array<() => void> = [];
    server.registerTool(
      'later',
      {},
      () => new Promise((resolve) => held.push(() => resolve({ content: [{ type: 'text', text: 'done' }] }))),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const received: Array<Record<string, unknown>> = [];
    clientSide.onmessage = (message) => received.push(message as Record<string, unknown>);
    const session = await server.serve(serverSide);
    await clientSide.start();
    const call = (id: number | string) =>
      clientSide.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'later', arguments: {}, _meta: modernMeta() },
      });
    try {
      for (const id of [7, 'seven']) {
        await call(id);
        await waitFor(() => held.length === 1);
        await call(id);
        await waitFor(() => received.length === 1);
        expect(received.pop()).toMatchObject({ id, error: { code: -32600 } });
        held.pop()?.();
        await waitFor(() => received.length === 1);
        expect(received.pop()).toMatchObject({ id, result: { content: [{ text: 'done' }] } });
        // The same id again is a new request, not a duplicate.
        await call(id);
        await waitFor(() => held.length === 1);
        held.pop()?.();
        await waitFor(() => received.length === 1);
        expect(received.pop()).toMatchObject({ id, result: { content: [{ text: 'done' }] } });
      }
    } finally {
      await clientSide.close();
      await session.close();
    }
  });
});
