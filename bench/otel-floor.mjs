// The SDK's floor: what the OpenTelemetry SDK itself costs for exactly the work agentforge/otel asks of it per
// traced request, each operation timed alone in this process (CPU per operation, median of 7 rounds), with the
// span processor, propagator and context manager of the tracing bench rows (bench/lib/otel.mjs).
//   node bench/otel-floor.mjs          the per-operation table
//   node bench/otel-floor.mjs hooks    agentforge/otel's client middleware and server hook per request, against the
//                                      least code doing the same SDK work (bench/lib/otel-floor-hooks.mjs)
//   node bench/otel-floor.mjs promise  the CPU of one promise + reaction, without and with AsyncLocalStorage
//                                      hooks entered (each mode in its own process: the hooks stay once entered)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT_CONTEXT, SpanKind, context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { noopExportTelemetry } from './lib/otel.mjs';

const ROUNDS = 7;
const CHUNK = 256; // operations between turns of the event loop: the batch processor exports in between

async function perOp(label, n, setup) {
  const op = setup();
  const samples = [];
  for (let round = -1; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (let done = 0; done < n; done += CHUNK) {
      for (let i = 0; i < CHUNK; i++) op(i);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.cpuUsage(start);
    if (round >= 0) samples.push((used.user + used.system) / n);
  }
  samples.sort((a, b) => a - b);
  const median = samples[samples.length >> 1];
  console.log(`${label.padEnd(64)} ${median.toFixed(2).padStart(7)} us`);
  return median;
}

// The attribute sets agentforge/otel builds once per operation and hands the SDK on every request.
const spanAttributes = {
  'mcp.method.name': 'tools/call',
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'echo',
  'network.transport': 'pipe',
  'mcp.protocol.version': '2026-07-28',
};
const metricAttributes = spanAttributes;

async function operations() {
  const { tracerProvider, meterProvider } = noopExportTelemetry();
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = tracerProvider.getTracer('agentforge', '1');
  const histogram = meterProvider
    .getMeter('agentforge', '1')
    .createHistogram('mcp.client.operation.duration', {
      unit: 's',
      advice: { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] },
    });
  const n = 100_000;
  console.log(`Node ${process.version}, CPU per operation (median of ${ROUNDS} rounds of ${n})`);
  const empty = await perOp('loop only', n, () => () => {});
  const rows = {};
  rows.startEnd = await perOp(
    'startSpan(kind, 5 attributes, parent) + setAttribute(id) + end',
    n,
    () => (i) => {
      const span = tracer.startSpan(
        'tools/call echo',
        { kind: SpanKind.CLIENT, attributes: spanAttributes },
        ROOT_CONTEXT,
      );
      span.setAttribute('jsonrpc.request.id', String(i));
      span.end();
    },
  );
  rows.record = await perOp('histogram.record(duration, the same 5 attributes object)', n, () => (i) => {
    histogram.record(i / 1e6, metricAttributes);
  });
  rows.now = await perOp('performance.now() x2', n, () => () => {
    performance.now();
    performance.now();
  });
  const span = tracer.startSpan('parent', { kind: SpanKind.CLIENT }, ROOT_CONTEXT);
  const withSpan = trace.setSpan(ROOT_CONTEXT, span);
  rows.inject = await perOp('trace.setSpan + propagation.inject (W3C) into {}', n, () => () => {
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), {});
  });
  const carrier = {};
  propagation.inject(withSpan, carrier);
  rows.extract = await perOp('propagation.extract (W3C traceparent) from _meta', n, () => () => {
    propagation.extract(ROOT_CONTEXT, carrier);
  });
  rows.with = await perOp('context.with(span context, fn) (AsyncLocalStorage)', n, () => () => {
    context.with(withSpan, () => 0);
  });
  rows.active = await perOp('context.active()', n, () => () => context.active());
  const client = rows.startEnd + rows.record + rows.now + rows.inject + rows.active - 5 * empty;
  const server = rows.startEnd + rows.record + rows.now + rows.extract + rows.with - 5 * empty;
  console.log(
    `floor per request, client side (span, record, clock, inject, active): ${client.toFixed(2)} us`,
  );
  console.log(
    `floor per request, server side (span, record, clock, extract, with):  ${server.toFixed(2)} us`,
  );
  span.end();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
}

async function promiseCost(mode) {
  if (mode === 'als') {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    // Entering a context once is what turns the promise hooks on (Node 20: async_hooks; 22: the same unless
    // --experimental-async-context-frame); a provider's register() does not enter one by itself.
    context.with(
      trace.setSpan(
        ROOT_CONTEXT,
        trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '1'.repeat(16), traceFlags: 1 }),
      ),
      () => {},
    );
  }
  const n = 200_000;
  const samples = [];
  for (let round = -1; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) await Promise.resolve(i).then((v) => v);
    const used = process.cpuUsage(start);
    if (round >= 0) samples.push((used.user + used.system) / n / 3); // three promises a turn
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

// One echo tools/call as each hook sees it: the client's request context and the server's incoming request.
async function hooks() {
  const { clientTracing, serverTracing } = await import(
    process.env.OTEL_FLOOR_DIST ?? '../dist/otel/index.js'
  );
  const { floorClient, floorServer, hollowTelemetry } = await import('./lib/otel-floor-hooks.mjs');
  const hollow = hollowTelemetry();
  const telemetry = noopExportTelemetry();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(telemetry.tracerProvider);
  metrics.setGlobalMeterProvider(telemetry.meterProvider);
  let id = 0;
  const link = {
    kind: 'stdio',
    transport: {},
    connection: {},
    key: 'stdio:node server.mjs',
    lastRequestId: () => id,
  };
  const request = {
    kind: 'request',
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hello' } },
    options: {},
    link,
    codec: { version: '2026-07-28' },
    idempotent: false,
    connecting: false,
  };
  const result = { content: [{ type: 'text', text: 'hello' }] };
  const sent = Promise.resolve(result);
  const next = () => {
    id++;
    return sent;
  };
  const meta = {};
  propagation.inject(
    trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '1'.repeat(16), traceFlags: 1 }),
    ),
    meta,
  );
  const incoming = (i) => ({
    method: 'tools/call',
    id: i,
    params: { name: 'echo', arguments: { text: 'hello' }, _meta: meta },
    era: 'stateless',
    protocolVersion: '2026-07-28',
    extra: undefined,
  });
  const handle = () => result;
  const n = 50_000;
  const cases = [
    ['client: next() only', () => () => next(request).then((r) => r)],
    [
      'client: least middleware, same SDK work',
      () => {
        const m = floorClient(telemetry);
        return () => m(request, next);
      },
    ],
    [
      'client: clientTracing()',
      () => {
        const m = clientTracing();
        return () => m(request, next);
      },
    ],
    [
      'server: handle() only',
      () => (i) => {
        incoming(i);
        return handle();
      },
    ],
    [
      'server: least hook, same SDK work',
      () => {
        const h = floorServer();
        return (i) => h(incoming(i), handle);
      },
    ],
    [
      'server: serverTracing()',
      () => {
        const h = serverTracing();
        return (i) => h(incoming(i), handle);
      },
    ],
    [
      'client: least middleware, hollow SDK',
      () => {
        const m = floorClient(hollow);
        return () => m(request, next);
      },
    ],
    [
      'client: clientTracing(), hollow SDK',
      () => {
        const m = clientTracing(hollow);
        return () => m(request, next);
      },
    ],
    [
      'server: least hook, hollow SDK',
      () => {
        const h = floorServer(hollow);
        return (i) => h(incoming(i), handle);
      },
    ],
    [
      'server: serverTracing(), hollow SDK',
      () => {
        const h = serverTracing(hollow);
        return (i) => h(incoming(i), handle);
      },
    ],
  ];
  console.log(`Node ${process.version}, CPU per request (median of ${ROUNDS} rounds of ${n})`);
  // OTEL_FLOOR_ONLY=hollow: only the rows whose label holds the word (an A/B of agentforge's own share).
  const only = process.env.OTEL_FLOOR_ONLY;
  for (const [label, setup] of cases) if (!only || label.includes(only)) await perOp(label, n, setup);
  await telemetry.tracerProvider.shutdown();
  await telemetry.meterProvider.shutdown();
}

const [command, mode] = process.argv.slice(2);
if (command === 'hooks') await hooks();
else if (command === 'promise' && mode) {
  console.log(JSON.stringify({ us: await promiseCost(mode) }));
} else if (command === 'promise') {
  const self = fileURLToPath(import.meta.url);
  const run = (m) =>
    JSON.parse(spawnSync(process.execPath, [self, 'promise', m], { encoding: 'utf8' }).stdout.trim()).us;
  const plain = run('plain');
  const als = run('als');
  console.log(`Node ${process.version}, CPU per promise (await of a resolved .then: 3 promises a turn)`);
  console.log(
    `no context manager: ${plain.toFixed(3)} us; AsyncLocalStorage entered: ${als.toFixed(3)} us; +${(als - plain).toFixed(3)} us a promise`,
  );
} else {
  await operations();
}
