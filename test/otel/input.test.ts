/**
 * Spans for what a server asks of the client: CLIENT spans on a handshake-era server (clientRequestTracing) and
 * SERVER spans on the client (inputTracing) for what the server asks of it (mcp.md: the Server span is reported "by the MCP
 * client when server initiates the operation"): elicitation and sampling over Streamable HTTP on 127.0.0.1, as
 * a handshake-era server's own requests (2025-11-25) and as MRTR input requests (2026-07-28).
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientRequestTracing, clientTracing, inputTracing, serverTracing } from '../../src/otel/index.js';
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
    const server = new McpServer(
      { name: 'asks', version: '1.0.0' },
      { aroundRequest: serverTracing(), aroundOutgoingRequest: clientRequestTracing() },
    );
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
    const finished = sdk.spans.getFinishedSpans();
    const asked = finished.filter(
      (span) => span.name === 'elicitation/create' && span.kind === SpanKind.SERVER,
    );
    expect(asked).toHaveLength(1);
    const [span] = asked;
    const asking = finished.filter((s) => s.name === 'elicitation/create' && s.kind === SpanKind.CLIENT);
    if (pinned) {
      // A handshake-era server asks with a request of its own: its CLIENT span, a child of the tools/call
      // SERVER span, parents the client's SERVER span through the request's _meta.
      const toolSpan = finished.find((s) => s.name === 'tools/call ask' && s.kind === SpanKind.SERVER);
      expect(asking).toHaveLength(1);
      expect(asking[0]?.parentSpanContext?.spanId).toBe(toolSpan?.spanContext().spanId);
      expect(asking[0]?.attributes).toMatchObject({
        'mcp.method.name': 'elicitation/create',
        'mcp.protocol.version': '2025-11-25',
        'network.transport': 'tcp',
        'mcp.session.id': expect.any(String),
      });
      expect(span?.parentSpanContext?.spanId).toBe(asking[0]?.spanContext().spanId);
    } else {
      // MRTR: the server asks inside its result; the tools/call rounds' spans cover it.
      expect(asking).toHaveLength(0);
    }
    expect(span?.attributes['mcp.method.name']).toBe('elicitation/create');
    expect(span?.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
    const points = histogramPoints((await sdk.collect()).get('mcp.server.operation.duration'));
    expect(points.some((point) => point.attributes['mcp.method.name'] === 'elicitation/create')).toBe(true);
  });

  it('a sampling handler that throws: the span is an error with error.type, the call fails', async () => {
    await expect(client.callTool({ name: 'sample', arguments: {} })).rejects.toThrow();
    const span = sdk.spans
      .getFinishedSpans()
      .find((s) => s.name === 'sampling/createMessage' && s.kind === SpanKind.SERVER);
    expect(span).toBeDefined();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.status.message).toBe('no model here');
    expect(span?.attributes['error.type']).toBe('Error');
    if (pinned) {
      // The server's request failed with the client's JSON-RPC error: its CLIENT span says which.
      const asking = sdk.spans
        .getFinishedSpans()
        .find((s) => s.name === 'sampling/createMessage' && s.kind === SpanKind.CLIENT);
      expect(asking?.status.code).toBe(SpanStatusCode.ERROR);
      expect(asking?.attributes['error.type']).toMatch(/^-32\d{3}$/);
    }
  });
});
