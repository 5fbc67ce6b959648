/**
 * Gateway spans (agentforge/otel `gatewayTracing`): a caller's tools/call through the gateway is one trace: the
 * caller's CLIENT span, the gateway's SERVER span for it (its child, over HTTP), and the gateway's CLIENT span
 * for the upstream request (the SERVER span's child), which names the upstream server; the upstream request
 * carries that span's context in `_meta`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clientTracing, GATEWAY_UPSTREAM, gatewayTracing } from '../../src/otel/index.js';
import { registerSdk } from '../otel/support.js';
import { lab, startGateway, textOf } from './support.js';

const sdk = registerSdk();
afterEach(() => sdk.spans.reset());

describe('gateway spans', () => {
  it('parents the upstream CLIENT span to the caller request SERVER span, naming the upstream', async () => {
    await using running = await startGateway({ alpha: lab('alpha') }, gatewayTracing());
    const caller = await running.connect({ middleware: [clientTracing()] });
    expect(textOf(await caller.callTool({ name: 'alpha__search', arguments: { query: 'span' } }))).toBe(
      'alpha found: span',
    );
    const spans = sdk.spans.getFinishedSpans();
    const find = (name: string, kind: number) => {
      const span = spans.find((s) => s.name === name && s.kind === kind);
      if (!span)
        throw new Error(
          `no ${name} span of kind ${kind}: ${spans.map((s) => `${s.name}:${s.kind}`).join(', ')}`,
        );
      return span;
    };
    const callerSpan = find('tools/call alpha__search', 2);
    const serverSpan = find('tools/call alpha__search', 1);
    const upstreamSpan = find('tools/call search', 2);
    expect(serverSpan.parentSpanContext?.spanId).toBe(callerSpan.spanContext().spanId);
    expect(upstreamSpan.parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
    expect(new Set([callerSpan, serverSpan, upstreamSpan].map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(upstreamSpan.attributes[GATEWAY_UPSTREAM]).toBe('alpha');
    expect(serverSpan.attributes[GATEWAY_UPSTREAM]).toBeUndefined();
    expect(upstreamSpan.attributes['network.transport']).toBe('pipe');
  }, 60_000);

  it('traces nothing upstream without the hooks', async () => {
    await using running = await startGateway({ alpha: lab('alpha') });
    const caller = await running.connect();
    await caller.callTool({ name: 'alpha__search', arguments: { query: 'quiet' } });
    expect(sdk.spans.getFinishedSpans()).toEqual([]);
  }, 60_000);
});
