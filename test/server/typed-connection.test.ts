/**
 * A client Connection typed by the request map (Connection<ClientRequests>) against a real McpServer over an
 * in-memory pair: params and results are used without casts, and what the server sends matches the types.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import {
  type ClientRequests,
  LATEST_HANDSHAKE_VERSION,
  Method,
  Notification,
  mcpHooks,
} from '../../src/mcp/index.js';
import { McpServer } from '../../src/server/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { expectValid } from '../support/schema.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((peer) => peer.close()));
});

async function typedClient(server: McpServer): Promise<Connection<ClientRequests>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  open.push(await server.connect(serverSide));
  const connection = new Connection<ClientRequests>(clientSide, { hooks: mcpHooks });
  open.push(connection);
  await connection.start();
  return connection;
}

describe('Connection<ClientRequests> against McpServer', () => {
  it('initialize, tools/list and tools/call typed end to end', async () => {
    const server = new McpServer({ name: 'typed', version: '1.2.3' });
    server.registerTool(
      'get_weather',
      {
        inputSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
      },
      ({ location }) => ({
        content: [{ type: 'text', text: `${location}: 26°C` }],
        structuredContent: { celsius: 26 },
      }),
    );
    const client = await typedClient(server);
    const init = await client.request(Method.Initialize, {
      protocolVersion: LATEST_HANDSHAKE_VERSION,
      capabilities: {},
      clientInfo: { name: 'typed-client', version: '1' },
    });
    expectValid(LATEST_HANDSHAKE_VERSION, 'InitializeResult', init);
    expect(init.serverInfo).toEqual({ name: 'typed', version: '1.2.3' });
    expect(init.capabilities.tools?.listChanged).toBe(true);
    await client.notify(Notification.Initialized);

    const list = await client.request(Method.ToolsList);
    expect(list.tools.map((tool) => [tool.name, tool.inputSchema.required])).toEqual([
      ['get_weather', ['location']],
    ]);
    const result = await client.request(Method.ToolsCall, {
      name: 'get_weather',
      arguments: { location: 'Hangzhou' },
    });
    // A handshake session never answers input_required; the check narrows the result to CallToolResult.
    if (result.resultType === 'input_required') throw new Error('unexpected input_required');
    expect(result.resultType).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'Hangzhou: 26°C' }]);
    expect(result.structuredContent).toEqual({ celsius: 26 });
  });
});
