/**
 * agentforge/otel's CLIENT and SERVER spans across real transports: a traced child-process server over stdio
 * (its own SDK writes its spans to a file) and a traced server over Streamable HTTP on 127.0.0.1, in both
 * protocol eras. One trace runs from the caller's span through the client to the server's handler.
 */
import { SpanKind, SpanStatusCode, context as otelContext, propagation, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientTracing, serverTracing } from '../../src/otel/index.js';
import { McpServer } from '../../src/server/server.js';
import type { Listening } from '../../src/server/listen.js';
import {
  OTEL_SERVER,
  type SpanFile,
  histogramPoints,
  named,
  registerSdk,
  rootedIn,
  spanFile,
} from './support.js';

const sdk = registerSdk();
const tracer = trace.getTracer('test');
const underRoot = rootedIn(sdk);
afterEach(() => sdk.spans.reset());

describe.each([
  ['2026-07-28', undefined],
  ['2025-11-25', '2025-11-25'],
] as const)('over stdio, speaking %s', (version, pinned) => {
  let spans: SpanFile;
  let client: McpClient;

  beforeAll(async () => {
    spans = spanFile();
    client = await McpClient.connect(
      { command: process.execPath, args: [OTEL_SERVER], env: { OTEL_SPANS_FILE: spans.path } },
      {
        middleware: [clientTracing()],
        eraCache: new EraCache(),
        ...(pinned ? { protocolVersion: pinned } : {}),
      },
    );
  });
  afterAll(async () => {
    await client?.close();
    spans?.dispose();
  });

  it('a tools/call is one trace: root > CLIENT span > SERVER span > the handler own span', async () => {
    const { root, value } = await underRoot(() =>
      client.callTool({ name: 'echo', arguments: { text: 'hi' } }),
    );
    expect(value.content).toEqual([{ type: 'text', text: 'hi' }]);
    const clientSpan = named(sdk.spans.getFinishedSpans(), 'tools/call echo');
    expect(clientSpan.kind).toBe(SpanKind.CLIENT);
    expect(clientSpan.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(clientSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': version,
      'network.transport': 'pipe',
    });
    expect(clientSpan.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(clientSpan.attributes['error.type']).toBeUndefined();
    // Arguments and results are content: not recorded unless asked for.
    expect(clientSpan.attributes['gen_ai.tool.call.arguments']).toBeUndefined();

    const written = await spans.waitFor('echo work');
    const serverSpan = written.find((span) => span.name === 'tools/call echo')!;
    expect(serverSpan).toMatchObject({
      kind: SpanKind.SERVER,
      traceId: root.spanContext().traceId,
      parentSpanId: clientSpan.spanContext().spanId,
    });
    expect(serverSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'mcp.protocol.version': version,
      'network.transport': 'pipe',
      'jsonrpc.request.id': clientSpan.attributes['jsonrpc.request.id'],
    });
    const work = written.find((span) => span.name === 'echo work')!;
    expect(work.parentSpanId).toBe(serverSpan.spanId);
  });

  it('a result with isError is error.type tool_error on both sides', async () => {
    await underRoot(() => client.callTool({ name: 'fails', arguments: {} }));
    const clientSpan = named(sdk.spans.getFinishedSpans(), 'tools/call fails');
    expect(clientSpan.attributes['error.type']).toBe('tool_error');
    expect(clientSpan.status.code).toBe(SpanStatusCode.ERROR);
    const serverSpan = (await spans.waitFor('tools/call fails')).find((s) => s.name === 'tools/call fails')!;
    expect(serverSpan.attributes['error.type']).toBe('tool_error');
    expect(serverSpan.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a JSON-RPC error is error.type the code, and prompts/get is named by its prompt', async () => {
    await expect(underRoot(() => client.getPrompt({ name: 'absent' }))).rejects.toThrow();
    const failed = named(sdk.spans.getFinishedSpans(), 'prompts/get absent');
    expect(failed.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    const serverFailed = (await spans.waitFor('prompts/get absent')).find(
      (s) => s.name === 'prompts/get absent',
    );
    expect(serverFailed?.attributes).toMatchObject({
      'error.type': '-32602',
      'gen_ai.prompt.name': 'absent',
    });

    await underRoot(() => client.getPrompt({ name: 'greet' }));
    expect(named(sdk.spans.getFinishedSpans(), 'prompts/get greet').attributes['gen_ai.prompt.name']).toBe(
      'greet',
    );
  });
});

describe('over Streamable HTTP on 127.0.0.1', () => {
  let listening: Listening;
  const seenHeaders: Array<string | null> = [];
  const seenBaggage: Array<{ meta: string; header: string | null; inHandler: string | null }> = [];

  beforeAll(async () => {
    const server = new McpServer({ name: 'http-otel', version: '1.0.0' }, { aroundRequest: serverTracing() });
    server.registerTool('echo', { description: 'Echoes' }, (_args, context) => {
      seenHeaders.push(context.extra?.headers?.get('traceparent') ?? null);
      tracer.startSpan('echo work').end();
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    server.registerTool('fails', { description: 'Fails' }, () => ({ content: [], isError: true }));
    server.registerTool('baggage', { description: 'Reports the baggage it sees' }, (_args, context) => {
      const inHandler = propagation.getBaggage(otelContext.active())?.getEntry('user')?.value ?? null;
      seenBaggage.push({
        meta: String(context.meta?.baggage),
        header: context.extra?.headers?.get('baggage') ?? null,
        inHandler,
      });
      return { content: [] };
    });
    server.registerTool('slow', { description: 'Answers late' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { content: [] };
    });
    listening = await server.listen({ port: 0 });
  });
  afterAll(() => listening?.close());

  it.each([
    ['2026-07-28', undefined],
    ['2025-11-25', '2025-11-25'],
  ] as const)('%s: the trace rides in _meta and the traceparent header; server.address/port are the server', async (version, pinned) => {
    seenHeaders.length = 0;
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
      ...(pinned ? { protocolVersion: pinned } : {}),
    });
    try {
      const { root } = await underRoot(() => client.callTool({ name: 'echo', arguments: {} }));
      const finished = sdk.spans.getFinishedSpans();
      const clientSpans = finished.filter((s) => s.name === 'tools/call echo' && s.kind === SpanKind.CLIENT);
      const serverSpans = finished.filter((s) => s.name === 'tools/call echo' && s.kind === SpanKind.SERVER);
      expect(clientSpans).toHaveLength(1);
      expect(serverSpans).toHaveLength(1);
      const [clientSpan, serverSpan] = [clientSpans[0]!, serverSpans[0]!];
      expect(clientSpan.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(serverSpan.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(named(finished, 'echo work').parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
      const port = new URL(listening.url).port;
      expect(clientSpan.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': Number(port),
        'mcp.protocol.version': version,
      });
      expect(serverSpan.attributes).toMatchObject({
        'network.transport': 'tcp',
        'mcp.protocol.version': version,
      });
      // The same W3C traceparent went as an HTTP header: the client span's context.
      expect(seenHeaders).toEqual([
        `00-${clientSpan.spanContext().traceId}-${clientSpan.spanContext().spanId}-01`,
      ]);
      if (pinned) {
        // A handshake-era session over HTTP has an id; both sides record it.
        expect(clientSpan.attributes['mcp.session.id']).toEqual(expect.any(String));
        expect(serverSpan.attributes['mcp.session.id']).toBe(clientSpan.attributes['mcp.session.id']);
        expect(finished.some((s) => s.name === 'initialize' && s.kind === SpanKind.CLIENT)).toBe(true);
      }
    } finally {
      await client.close();
    }
  });

  it('records both operation-duration histograms in seconds, tool_error apart', async () => {
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
    });
    try {
      await client.callTool({ name: 'echo', arguments: {} });
      await client.callTool({ name: 'fails', arguments: {} });
    } finally {
      await client.close();
    }
    const recorded = await sdk.collect();
    for (const name of ['mcp.client.operation.duration', 'mcp.server.operation.duration']) {
      const metric = recorded.get(name);
      expect(metric?.descriptor.unit).toBe('s');
      // Earlier tests recorded calls over stdio in the same (cumulative) histograms.
      const points = histogramPoints(metric).filter((p) => p.attributes['network.transport'] === 'tcp');
      const echo = points.find((p) => p.attributes['gen_ai.tool.name'] === 'echo');
      const fails = points.find((p) => p.attributes['gen_ai.tool.name'] === 'fails');
      expect(echo?.value.count).toBeGreaterThanOrEqual(1);
      expect(echo?.value.sum).toBeGreaterThan(0);
      expect(echo?.value.sum).toBeLessThan(10);
      expect(echo?.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
      });
      expect(echo?.attributes['error.type']).toBeUndefined();
      // Per-request identifiers would make every point its own series.
      expect(echo?.attributes['jsonrpc.request.id']).toBeUndefined();
      expect(fails?.attributes['error.type']).toBe('tool_error');
    }
  });

  it('legacy HTTP+SSE: the POSTed message carries the trace in _meta and the traceparent header', async () => {
    seenHeaders.length = 0;
    const client = await McpClient.connect(new URL('/sse', listening.url).href, {
      transport: 'sse',
      middleware: [clientTracing()],
      eraCache: new EraCache(),
    });
    try {
      await client.callTool({ name: 'echo', arguments: {} });
    } finally {
      await client.close();
    }
    const finished = sdk.spans.getFinishedSpans();
    const clientSpan = finished.find((s) => s.name === 'tools/call echo' && s.kind === SpanKind.CLIENT)!;
    const serverSpan = finished.find((s) => s.name === 'tools/call echo' && s.kind === SpanKind.SERVER)!;
    expect(clientSpan.attributes['network.transport']).toBe('tcp');
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(seenHeaders).toEqual([
      `00-${clientSpan.spanContext().traceId}-${clientSpan.spanContext().spanId}-01`,
    ]);
  });

  it('carries baggage in _meta and the header, and the handler runs with it', async () => {
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
    });
    try {
      const bag = propagation.createBaggage({ user: { value: 'ada' } });
      await otelContext.with(propagation.setBaggage(otelContext.active(), bag), () =>
        client.callTool({ name: 'baggage', arguments: {} }),
      );
    } finally {
      await client.close();
    }
    expect(seenBaggage).toEqual([{ meta: 'user=ada', header: 'user=ada', inHandler: 'ada' }]);
  });

  it('a local failure is error.type its code: a call that timed out', async () => {
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
    });
    try {
      await expect(client.callTool({ name: 'slow', arguments: {} }, { timeoutMs: 50 })).rejects.toThrow();
    } finally {
      await client.close();
    }
    const span = sdk.spans
      .getFinishedSpans()
      .find((s) => s.name === 'tools/call slow' && s.kind === SpanKind.CLIENT);
    expect(span?.attributes['error.type']).toBe('timeout');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.events.map((event) => event.name)).toContain('exception');
  });

  it('takes the parent from the HTTP headers when _meta carries none', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const parentId = 'b7ad6b7169203331';
    const post = (body: unknown, headers: Record<string, string>) =>
      fetch(listening.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const init = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      {},
    );
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const common = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, common)).text();
    const call = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } },
      { ...common, traceparent: `00-${traceId}-${parentId}-01` },
    );
    expect(call.status).toBe(200);
    await call.text();
    const serverSpan = sdk.spans
      .getFinishedSpans()
      .find((s) => s.name === 'tools/call echo' && s.kind === SpanKind.SERVER);
    expect(serverSpan?.spanContext().traceId).toBe(traceId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(parentId);
    expect(serverSpan?.attributes['jsonrpc.request.id']).toBe('2');
  });
});
