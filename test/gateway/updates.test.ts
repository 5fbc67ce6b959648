/**
 * resources/updated through the gateway: an upstream's update reaches the callers subscribed to that resource,
 * under the URI the gateway serves it at: resources/subscribe on a handshake session, a subscriptions/listen
 * stream on 2026-07-28. And the caller's W3C trace context, carried across the hop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../src/server/http.js';
import { McpServer } from '../../src/server/server.js';
import { type Running, eventually, startGateway } from './support.js';

let upstream: Listening;
let running: Running;

beforeAll(async () => {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  let revision = 0;
  server.registerResource('today', 'notes://today', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, text: `revision ${revision}` }],
  }));
  server.registerTool('edit', { description: 'Change the note' }, () => {
    revision++;
    server.notifyResourceUpdated('notes://today');
    return { content: [{ type: 'text', text: `revision ${revision}` }] };
  });
  server.registerTool('trace', { description: 'The trace context this call carried' }, (_args, ctx) => ({
    content: [{ type: 'text', text: String(ctx.meta?.traceparent ?? 'none') }],
  }));
  upstream = await server.listen();
  running = await startGateway({ notes: { url: upstream.url } });
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
  await upstream?.close();
});

describe.each(['2025-11-25', '2026-07-28'])('a %s caller subscribed to a resource', (protocolVersion) => {
  it('hears its upstream updates under the gateway URI', async () => {
    const client = await running.connect({ protocolVersion });
    const updates: string[] = [];
    const subscription = await client.subscribe(
      { resourceSubscriptions: ['notes+notes://today'] },
      (note) => {
        const uri = (note.params as { uri?: unknown } | undefined)?.uri;
        if (typeof uri === 'string') updates.push(uri);
      },
    );
    try {
      await client.callTool({ name: 'notes__edit', arguments: {} });
      await eventually(() => updates.length > 0 || undefined);
      expect(updates[0]).toBe('notes+notes://today');
      const read = await client.readResource({ uri: 'notes+notes://today' });
      expect(read.contents[0]).toMatchObject({
        uri: 'notes+notes://today',
        text: expect.stringMatching(/^revision [1-9]/),
      });
    } finally {
      await subscription.close();
    }
  });
});

describe.each(['2025-11-25', '2026-07-28'])('a %s caller with a trace context', (protocolVersion) => {
  it('has it carried to the upstream request (one trace across the hop)', async () => {
    const client = await running.connect({ protocolVersion });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const result = await client.callTool({ name: 'notes__trace', arguments: {} }, { traceparent });
    expect(result.content).toEqual([{ type: 'text', text: traceparent }]);
    const junk = await client.callTool(
      { name: 'notes__trace', arguments: {} },
      { traceparent: 'not-a-trace' },
    );
    expect(junk.content).toEqual([{ type: 'text', text: 'none' }]);
  });
});
