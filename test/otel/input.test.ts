/**
 * SERVER spans on the client for what the server asks of it (mcp.md: the Server span is reported "by the MCP
 * client when server initiates the operation"): elicitation and sampling over Streamable HTTP on 127.0.0.1, as
 * a handshake-era server's own requests (2025-11-25) and as MRTR input requests (2026-07-28).
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientTracing, inputTracing, serverTracing } from '../../src/otel/index.js';
import type { Listening } from '../../src/server/listen.js';
import { McpServer } from '../../src/server/server.js';
import { histogramPoints, registerSdk, rootedIn } from './support.js';

const sdk = registerSdk();
const underRoot = rootedIn(sdk);
afterEach(() => sdk.spans.reset());

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

describe.each([
  ['2026-07-28', undefined],
  ['2025-11-25', '2025-11-25'],
] as const)('server-to-client requests, speaking %s', (_version, pinned) => {
  let listening: Listening;
  let client: McpClient;

  beforeAll(async () => {
    const server = new McpServer({ name: 'asks', version: '1.0.0' }, { aroundRequest: serverTracing() });
    server.registerTool('ask', { description: 'Asks for a name' }, async (_args, context) => {
      const reply = await context.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'name' });
      return { content: [{ type: 'text', text: String(reply.content?.name) }] };
    });
    server.registerTool('sample', { description: 'Asks for a completion' }, async (_args, context) => {
      await context.sample({ messages: [], maxTokens: 10 }, { key: 'completion' });
      return { content: [] };
    });
    listening = await server.listen({ port: 0 });
    client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
      ...(pinned ? { protocolVersion: pinned } : {}),
      handlers: inputTracing({
        elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
        sampling: () => {
          throw new Error('no model here');
        },
      }),
    });
  });
  afterAll(async () => {
    await client?.close();
    await listening?.close();
  });

  it('an elicitation is a SERVER span elicitation/create in the caller trace, timed', async () => {
    const { root, value } = await underRoot(() => client.callTool({ name: 'ask', arguments: {} }));
    expect(value.content).toEqual([{ type: 'text', text: 'Ada' }]);
    const asked = sdk.spans.getFinishedSpans().filter((span) => span.name === 'elicitation/create');
    expect(asked).toHaveLength(1);
    const [span] = asked;
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.attributes['mcp.method.name']).toBe('elicitation/create');
    expect(span?.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
    const points = histogramPoints((await sdk.collect()).get('mcp.server.operation.duration'));
    expect(points.some((point) => point.attributes['mcp.method.name'] === 'elicitation/create')).toBe(true);
  });

  it('a sampling handler that throws: the span is an error with error.type, the call fails', async () => {
    await expect(client.callTool({ name: 'sample', arguments: {} })).rejects.toThrow();
    const span = sdk.spans.getFinishedSpans().find((s) => s.name === 'sampling/createMessage');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.status.message).toBe('no model here');
    expect(span?.attributes['error.type']).toBe('Error');
  });
});
