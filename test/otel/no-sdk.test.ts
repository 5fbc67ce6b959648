/**
 * With no OpenTelemetry SDK registered the instrumentation steps aside: the client middleware hands the very
 * request it got to the next layer (no trace in `_meta`, no header), the server hook runs the handler alone.
 * Registering an SDK later turns both on, since they look the global providers up at each request.
 */
import type { ClientMiddleware, ClientRequestContext } from '../../src/client/contracts.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientTracing, serverTracing } from '../../src/otel/index.js';
import type { Listening } from '../../src/server/listen.js';
import { McpServer } from '../../src/server/server.js';
import { registerSdk } from './support.js';

describe('without an SDK', () => {
  let listening: Listening;
  const seen: Array<{ meta: unknown; header: string | null }> = [];

  beforeAll(async () => {
    const server = new McpServer({ name: 'plain', version: '1.0.0' }, { aroundRequest: serverTracing() });
    server.registerTool('echo', { description: 'Echoes' }, (_args, context) => {
      seen.push({
        meta: context.meta?.traceparent,
        header: context.extra?.headers?.get('traceparent') ?? null,
      });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    listening = await server.listen({ port: 0 });
  });
  afterAll(() => listening?.close());

  it('passes requests through untouched, then traces once an SDK is registered', async () => {
    const handed: Array<[ClientRequestContext, ClientRequestContext]> = [];
    let outer: ClientRequestContext | undefined;
    const before: ClientMiddleware = (context, next) => {
      outer = context;
      return next(context);
    };
    const after: ClientMiddleware = (context, next) => {
      if (outer && context.method === 'tools/call') handed.push([outer, context]);
      return next(context);
    };
    const client = await McpClient.connect(listening.url, {
      middleware: [before, clientTracing(), after],
      eraCache: new EraCache(),
    });
    try {
      await client.callTool({ name: 'echo', arguments: {} });
      expect(handed).toHaveLength(1);
      expect(handed[0]![1]).toBe(handed[0]![0]);
      expect(seen).toEqual([{ meta: undefined, header: null }]);

      const sdk = registerSdk();
      await client.callTool({ name: 'echo', arguments: {} });
      expect(handed[1]![1]).not.toBe(handed[1]![0]);
      expect(seen[1]!.meta).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(seen[1]!.header).toBe(seen[1]!.meta);
      const names = sdk.spans.getFinishedSpans().map((span) => span.name);
      expect(names).toEqual(['tools/call echo', 'tools/call echo']);
    } finally {
      await client.close();
    }
  });
});
