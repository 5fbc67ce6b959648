/**
 * A handshake-era upstream (a session: the gateway declared every capability for all its callers) asks for
 * input the caller never declared (roots, elicitation, sampling): the gateway answers as it answers with no
 * caller at all, and never sends it to that caller, since a server MUST NOT send a client a request it did
 * not declare (an official SDK client fails the call otherwise). A caller that declared it is asked, in either
 * era. A 2026-07-28 upstream gets the caller's own capabilities with each request and decides itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../src/server/http.js';
import { McpServer } from '../../src/server/server.js';
import { type Running, startGateway, textOf } from './support.js';

let upstream: Listening;
let running: Running;
const ERAS = ['2026-07-28', '2025-11-25'] as const;

beforeAll(async () => {
  const server = new McpServer({ name: 'asking', version: '1.0.0' });
  server.registerTool('roots', {}, async (_args, ctx) => {
    const { roots } = await ctx.listRoots();
    return { content: [{ type: 'text', text: `${roots.length} roots` }] };
  });
  server.registerTool('confirm', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return { content: [{ type: 'text', text: answer.action }] };
  });
  server.registerTool('sample', {}, async (_args, ctx) => {
    const reply = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 5,
    });
    return { content: [{ type: 'text', text: reply.model }] };
  });
  upstream = await server.listen();
  running = await startGateway({ up: { url: upstream.url, protocolVersion: '2025-11-25' } });
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
  await upstream?.close();
});

describe.each(ERAS)('a %s caller through the gateway', (protocolVersion) => {
  it('that declared nothing: roots are none, an elicitation is declined, sampling fails that call only', async () => {
    const client = await running.connect({ protocolVersion, capabilities: {} });
    expect(textOf(await client.callTool({ name: 'up__roots', arguments: {} }))).toBe('0 roots');
    expect(textOf(await client.callTool({ name: 'up__confirm', arguments: {} }))).toBe('decline');
    const sampled = await client
      .callTool({ name: 'up__sample', arguments: {} })
      .catch((error: Error) => error);
    const failed = sampled instanceof Error ? sampled.message : JSON.stringify(sampled);
    expect(failed).toMatch(/sampl/);
    expect(textOf(await client.callTool({ name: 'up__roots', arguments: {} }))).toBe('0 roots');
  });

  it('that declared roots and elicitation: is asked', async () => {
    const client = await running.connect({
      protocolVersion,
      handlers: {
        roots: async () => [
          { uri: 'file:///a', name: 'a' },
          { uri: 'file:///b', name: 'b' },
        ],
        elicitation: async () => ({ action: 'accept', content: {} }),
      },
    });
    expect(textOf(await client.callTool({ name: 'up__roots', arguments: {} }))).toBe('2 roots');
    expect(textOf(await client.callTool({ name: 'up__confirm', arguments: {} }))).toBe('accept');
  });
});
