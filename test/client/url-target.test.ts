/**
 * `McpClient.connect({ url, headers, type })`: a remote server given as its mcp.json entry is (Claude Desktop,
 * Cursor, VS Code), against a server on 127.0.0.1: the entry's headers reach the server, the caller's options
 * win over them, and `type: "sse"` takes the legacy HTTP+SSE transport.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { Listening } from '../../src/server/listen.js';
import { McpServer } from '../../src/server/server.js';

describe('an mcp.json entry as the target', () => {
  let listening: Listening;

  beforeAll(async () => {
    const server = new McpServer({ name: 'entry', version: '1.0.0' });
    server.registerTool('team', { description: 'Names the x-team header' }, (_args, context) => ({
      content: [{ type: 'text', text: context.extra?.headers?.get('x-team') ?? '(none)' }],
    }));
    listening = await server.listen({ port: 0 });
  });
  afterAll(() => listening?.close());

  const team = async (client: McpClient) => {
    try {
      return (await client.callTool({ name: 'team', arguments: {} })).content;
    } finally {
      await client.close();
    }
  };

  it('{ url, headers } connects as the URL does and sends the headers', async () => {
    const client = await McpClient.connect({ url: listening.url, headers: { 'x-team': 'blue' } });
    expect(client.transportKind).toBe('streamable-http');
    expect(await team(client)).toEqual([{ type: 'text', text: 'blue' }]);
  });

  it("the caller's headers are added over the entry's", async () => {
    const client = await McpClient.connect(
      { url: new URL(listening.url), headers: { 'x-team': 'blue' } },
      { headers: { 'x-team': 'red' } },
    );
    expect(await team(client)).toEqual([{ type: 'text', text: 'red' }]);
  });

  it('type "sse" speaks the legacy HTTP+SSE transport', async () => {
    const client = await McpClient.connect({ url: new URL('/sse', listening.url).href, type: 'sse' });
    expect(client.transportKind).toBe('sse');
    expect(await team(client)).toEqual([{ type: 'text', text: '(none)' }]);
  });
});
