/**
 * The transport seam is internal: McpServer's public surface has no routing or stateless-serving members, yet
 * every transport still reaches the server, with the synchronous answer of a synchronous tool kept.
 */
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../src/server/index.js';
import { createFetchHandler } from '../../src/server/http.js';
import { seamOf } from '../../src/server/seam.js';
import { modern } from './http/helpers.js';
import { modernMeta } from './support.js';

const SEAM_MEMBERS = ['isStatelessRequest', 'handleStatelessRequest', 'toolInputSchema'];

function adder(): McpServer {
  const server = new McpServer({ name: 'seam', version: '1' });
  server.registerTool(
    'add',
    {
      inputSchema: {
        type: 'object',
        properties: {
          a: { type: 'number' },
          b: { type: 'number' },
          unit: { type: 'string', 'x-mcp-header': 'Unit' },
        },
        required: ['a', 'b'],
      },
    },
    (args) => ({ content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] }),
  );
  return server;
}

describe('the server transport seam', () => {
  it('is not on McpServer', () => {
    const server = adder();
    for (const member of SEAM_MEMBERS) expect(member in server).toBe(false);
    // @ts-expect-error the seam is not part of the public type either
    expect(server.handleStatelessRequest).toBeUndefined();
    expect(seamOf({})).toBeUndefined();
  });

  it('serves a synchronous tool synchronously, and hands the HTTP layer the registered inputSchema', () => {
    const server = adder();
    const seam = seamOf(server);
    if (!seam) throw new Error('McpServer recorded no seam');
    const request = {
      jsonrpc: '2.0' as const,
      id: 7,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 2, b: 3 }, _meta: modernMeta() },
    };
    expect(seam.isStatelessRequest(request)).toBe(true);
    expect(seam.isStatelessRequest({ jsonrpc: '2.0', id: 8, method: 'tools/list' })).toBe(false);
    const answer = seam.handleStatelessRequest(request, {
      signal: new AbortController().signal,
      notify() {},
    });
    expect(answer).not.toBeInstanceOf(Promise);
    expect(answer).toMatchObject({ id: 7, result: { content: [{ text: '5' }] } });
    // The same object each call: the HTTP layer caches what it derives from it.
    expect(seam.toolInputSchema('add')).toBe(seam.toolInputSchema('add'));
    expect(seam.toolInputSchema('add')).toMatchObject({ required: ['a', 'b'] });
    expect(seam.toolInputSchema('missing')).toBeUndefined();
  });

  it('is what the HTTP entry points use when given an McpServer', async () => {
    const handler = createFetchHandler(adder(), { keepAliveMs: 0 });
    try {
      const { body, headers } = modern('tools/call', { name: 'add', arguments: { a: 1, b: 4, unit: 'm' } });
      const send = (extra: Record<string, string>) =>
        handler(
          new Request('http://localhost/mcp', {
            method: 'POST',
            headers: { ...headers, ...extra },
            body: JSON.stringify(body),
          }),
        );
      // Mcp-Param-Unit is checked against the schema the seam hands over, before the tool runs.
      const mismatch = await send({ 'mcp-param-unit': 'km' });
      expect(mismatch.status).toBe(400);
      expect(await mismatch.json()).toMatchObject({ error: { code: -32020 } });
      const ok = await send({ 'mcp-param-unit': 'm' });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ id: 1, result: { content: [{ text: '5' }] } });
    } finally {
      await handler.close();
    }
  });
});
