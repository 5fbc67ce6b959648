/**
 * 2026-07-28 server/tools: Structured Content may be any JSON value, described by an outputSchema of any root.
 * Handshake revisions (2025-06-18..2025-11-25) only know object-rooted output: the same tool is listed there
 * without its outputSchema and answers without a non-object structuredContent. Every message is schema-checked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer, type ToolResult } from '../../src/server/index.js';
import { type LegacyClient, legacyClient, modernResult } from './support.js';

const clients: LegacyClient[] = [];
afterEach(async () => {
  const done = clients.splice(0);
  await Promise.all(done.map((client) => client.close()));
  expect(done.flatMap((client) => client.schemaErrors).join('\n')).toBe('');
});

function makeServer(): { server: McpServer; runs: string[] } {
  const runs: string[] = [];
  const server = new McpServer({ name: 'structured', version: '1' });
  const users = (names: unknown[]) =>
    ({
      content: [{ type: 'text', text: `${names.length} users` }],
      structuredContent: names,
    }) as unknown as ToolResult<string[]>; // names may break the outputSchema on purpose
  server.registerTool(
    'list_users',
    {
      description: 'names of all users',
      inputSchema: { type: 'object', properties: { broken: { type: 'boolean' } } },
      outputSchema: { type: 'array', items: { type: 'string' } },
    },
    ({ broken }: { broken?: boolean }) => {
      runs.push('list_users');
      return users(broken ? ['ada', 42] : ['ada', 'lin']);
    },
  );
  server.registerTool(
    'count',
    { outputSchema: { type: 'integer' } },
    () => ({ structuredContent: 7 }) as unknown as ToolResult<number>, // no content: the server adds it
  );
  server.registerTool(
    'pixels',
    { outputSchema: { type: 'array' } },
    () =>
      ({
        content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
        structuredContent: [1, 2],
      }) as unknown as ToolResult<unknown[]>,
  );
  return { server, runs };
}

describe('non-object structured content', () => {
  it('2026-07-28: lists the array outputSchema and returns an array, validated before it is sent', async () => {
    const { server } = makeServer();
    const list = await modernResult(server, 'tools/list');
    expect(list.tools).toContainEqual(
      expect.objectContaining({
        name: 'list_users',
        outputSchema: { type: 'array', items: { type: 'string' } },
      }),
    );
    const ok = await modernResult(server, 'tools/call', { name: 'list_users', arguments: {} });
    expect(ok).toMatchObject({ resultType: 'complete', structuredContent: ['ada', 'lin'] });
    expect(ok.isError).toBeUndefined();
    // A scalar result without content gets its JSON as a text block (server/tools: backwards compatibility).
    const count = await modernResult(server, 'tools/call', { name: 'count', arguments: {} });
    expect(count).toMatchObject({ structuredContent: 7, content: [{ type: 'text', text: '7' }] });
  });

  it('2026-07-28: output that breaks the outputSchema is a tool execution error, never sent as data', async () => {
    const { server, runs } = makeServer();
    const bad = await modernResult(server, 'tools/call', { name: 'list_users', arguments: { broken: true } });
    expect(runs).toEqual(['list_users']);
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    expect(JSON.stringify(bad.content)).toMatch(/does not match its outputSchema: \/1 must be string/);
  });

  it('2025-11-25 and 2025-06-18: the tool is listed without outputSchema and answers without the array', async () => {
    for (const revision of ['2025-11-25', '2025-06-18']) {
      const { server } = makeServer();
      const client = await legacyClient(server, { revision });
      clients.push(client);
      const list = await client.connection.request('tools/list', {});
      const tool = (list.tools as Array<Record<string, unknown>>).find((t) => t.name === 'list_users');
      expect(tool, revision).toBeDefined();
      expect(tool).not.toHaveProperty('outputSchema');
      const result = await client.connection.request('tools/call', { name: 'list_users', arguments: {} });
      expect(result).toEqual({ content: [{ type: 'text', text: '2 users' }] });
      // Without a text block of its own, the value still reaches the legacy client as JSON text.
      const pixels = await client.connection.request('tools/call', { name: 'pixels', arguments: {} });
      expect(pixels).toEqual({
        content: [
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'text', text: '[1,2]' },
        ],
      });
    }
  });
});
