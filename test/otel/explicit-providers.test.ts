/**
 * Providers handed to the instrumentation instead of registered globally: no global propagator either, so the
 * client writes the W3C traceparent itself and the server reads it itself; one trace still runs across HTTP.
 */
import { SpanKind } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientTracing, serverTracing } from '../../src/otel/index.js';
import type { Listening } from '../../src/server/listen.js';
import { McpServer } from '../../src/server/server.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider();

describe('explicit providers, nothing global', () => {
  let listening: Listening;
  const seen: unknown[] = [];

  beforeAll(async () => {
    const server = new McpServer(
      { name: 'explicit', version: '1.0.0' },
      { aroundRequest: serverTracing({ tracerProvider, meterProvider }) },
    );
    server.registerTool('echo', { description: 'Echoes' }, (_args, context) => {
      seen.push(context.meta?.traceparent);
      return { content: [] };
    });
    listening = await server.listen({ port: 0 });
  });
  afterAll(() => listening?.close());

  it('propagates and parents with the W3C fields written and read directly', async () => {
    const client = await McpClient.connect(listening.url, {
      middleware: [clientTracing({ tracerProvider, meterProvider })],
      eraCache: new EraCache(),
    });
    try {
      await client.callTool({ name: 'echo', arguments: {} });
    } finally {
      await client.close();
    }
    const finished = spans.getFinishedSpans().filter((span) => span.name === 'tools/call echo');
    const clientSpan = finished.find((span) => span.kind === SpanKind.CLIENT)!;
    const serverSpan = finished.find((span) => span.kind === SpanKind.SERVER)!;
    const { traceId, spanId } = clientSpan.spanContext();
    expect(seen).toEqual([`00-${traceId}-${spanId}-01`]);
    expect(serverSpan.spanContext().traceId).toBe(traceId);
    expect(serverSpan.parentSpanContext).toMatchObject({ spanId, isRemote: true });
  });
});
