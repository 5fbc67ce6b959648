/** serve(transport) with one-time requestStates: an MRTR retry over a dual-era channel is claimed once. */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import { mcpHooks } from '../../src/mcp/hooks.js';
import { InMemoryOneTimeStateStore, McpServer } from '../../src/server/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { modernMeta } from './support.js';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

describe('serve(transport) with one-time requestStates', () => {
  it('answers the retry that brings a fresh state, and refuses it presented again', async () => {
    const server = new McpServer(
      { name: 'dual', version: '1' },
      { requestState: { oneTime: new InMemoryOneTimeStateStore() } },
    );
    server.registerTool('greet', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
      const reply = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' });
      return { content: [{ type: 'text', text: `Hello, ${reply.content?.name}` }] };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const session = await server.serve(serverSide);
    const connection = new Connection(clientSide, { hooks: mcpHooks });
    await connection.start();
    try {
      const first = await connection.request('tools/call', {
        name: 'greet',
        arguments: {},
        _meta: modernMeta(),
      });
      expect(first).toMatchObject({ resultType: 'input_required' });
      const retry = {
        name: 'greet',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: first.requestState,
        _meta: modernMeta(),
      };
      expect(await connection.request('tools/call', retry)).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'Hello, Ada' }],
      });
      await expect(connection.request('tools/call', retry)).rejects.toMatchObject({ code: -32602 });
    } finally {
      await connection.close();
      await session.close();
    }
  });
});
