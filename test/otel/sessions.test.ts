/**
 * mcp.md beyond the operation spans: the session-duration histograms on both sides (a handshake-era session
 * over Streamable HTTP closed by the client; a stdio server that crashed, as `error.type`), and `client.address`
 * / `client.port` on the server's spans over HTTP.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientTracing, serverTracing } from '../../src/otel/index.js';
import type { Listening } from '../../src/server/listen.js';
import { McpServer } from '../../src/server/server.js';
import { type HistogramPoint, OTEL_SERVER, histogramPoints, registerSdk, spanFile } from './support.js';

const sdk = registerSdk();
afterEach(() => sdk.spans.reset());

/** The points of histogram `name` matching `wanted`, once there are some counting more than `after` sessions. */
async function pointsOf(
  name: string,
  wanted: (point: HistogramPoint) => boolean,
  after = 0,
): Promise<HistogramPoint[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const points = histogramPoints((await sdk.collect()).get(name)).filter(wanted);
    if (points.some((point) => point.value.count > after) || Date.now() > deadline) return points;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const countOf = async (name: string, wanted: (point: HistogramPoint) => boolean) =>
  histogramPoints((await sdk.collect()).get(name))
    .filter(wanted)
    .reduce((sum, point) => sum + point.value.count, 0);

describe('over Streamable HTTP on 127.0.0.1', () => {
  let listening: Listening;

  beforeAll(async () => {
    const server = new McpServer({ name: 'sessions', version: '1.0.0' }, { aroundRequest: serverTracing() });
    server.registerTool('echo', { description: 'Echoes' }, () => ({ content: [] }));
    listening = await server.listen({ port: 0 });
  });
  afterAll(() => listening?.close());

  it.each([
    ['2026-07-28', undefined],
    ['2025-11-25', '2025-11-25'],
  ] as const)('%s: the SERVER span carries client.address and client.port', async (_version, pinned) => {
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
      ...(pinned ? { protocolVersion: pinned } : {}),
    });
    try {
      await client.callTool({ name: 'echo', arguments: {} });
      const serverSpan = sdk.spans
        .getFinishedSpans()
        .find((span) => span.name === 'tools/call echo' && span.kind === SpanKind.SERVER);
      expect(serverSpan?.attributes['client.address']).toBe('127.0.0.1');
      expect(serverSpan?.attributes['client.port']).toEqual(expect.any(Number));
      expect(serverSpan?.attributes['client.port']).not.toBe(Number(new URL(listening.url).port));
      // Never on the CLIENT span, nor on the histograms (one series per client port otherwise).
      const clientSpan = sdk.spans
        .getFinishedSpans()
        .find((span) => span.name === 'tools/call echo' && span.kind === SpanKind.CLIENT);
      expect(clientSpan?.attributes['client.address']).toBeUndefined();
      const points = histogramPoints((await sdk.collect()).get('mcp.server.operation.duration'));
      expect(points.some((point) => 'client.address' in point.attributes)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('a 2025-11-25 session closed by the client: both session durations, no error.type', async () => {
    const ours = (point: HistogramPoint) => point.attributes['mcp.protocol.version'] === '2025-11-25';
    const clientBefore = await countOf('mcp.client.session.duration', ours);
    const serverBefore = await countOf('mcp.server.session.duration', ours);
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing()],
      eraCache: new EraCache(),
      protocolVersion: '2025-11-25',
    });
    await client.callTool({ name: 'echo', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.close();
    const expected = {
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    };
    const [clientPoint] = await pointsOf('mcp.client.session.duration', ours, clientBefore);
    expect(clientPoint?.attributes).toMatchObject({
      ...expected,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(listening.url).port),
    });
    expect(clientPoint?.attributes['error.type']).toBeUndefined();
    expect(clientPoint?.value.count).toBe(clientBefore + 1);
    expect(clientPoint?.value.max).toBeGreaterThanOrEqual(0.05);
    // The server's session ends when the client's DELETE reaches it.
    const [serverPoint] = await pointsOf('mcp.server.session.duration', ours, serverBefore);
    expect(serverPoint?.attributes).toMatchObject(expected);
    expect(serverPoint?.attributes['error.type']).toBeUndefined();
    expect(serverPoint?.value.count).toBe(serverBefore + 1);
    expect(serverPoint?.value.max).toBeGreaterThanOrEqual(0.05);
  });
});

describe('over stdio', () => {
  it('a server process that exits mid-session: the client session duration has error.type process_exited', async () => {
    const spans = spanFile();
    const client = await McpClient.connect(
      { command: process.execPath, args: [OTEL_SERVER], env: { OTEL_SPANS_FILE: spans.path } },
      { middleware: [clientTracing()], eraCache: new EraCache(), protocolVersion: '2025-11-25' },
    );
    try {
      await expect(client.callTool({ name: 'exit', arguments: {} })).rejects.toThrow();
      const [point] = await pointsOf(
        'mcp.client.session.duration',
        (p) => p.attributes['network.transport'] === 'pipe',
      );
      expect(point?.attributes).toMatchObject({
        'network.transport': 'pipe',
        'mcp.protocol.version': '2025-11-25',
        'error.type': 'process_exited',
      });
    } finally {
      await client.close();
      spans.dispose();
    }
  });
});
