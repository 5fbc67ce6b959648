// One measurement cell: a fresh client process for one (scenario, implementation) pair. It starts the
// server child itself, warms up, measures, and prints `RESULT <json>`. A fresh process per cell keeps
// JIT and GC state of one implementation from leaking into another's numbers.
import { performance } from 'node:perf_hooks';
import {
  childPids,
  cpuTicks,
  memKB,
  otherThreadsCpuUs,
  serverCommand,
  startHttpServer,
  TICK_US,
} from './lib/proc.mjs';
import { agentforgeLoop, handLoop, zeroLatencyModel } from './lib/agent-loop.mjs';
import { gatewayCall, gatewayList, toolSearchBytes } from './lib/gateway.mjs';
import { scaleOutScenarios } from './lib/scale-out.mjs';
import { ECHO_TEXT, ORDER_ARGS, youngGenerationBytes } from './lib/tools.mjs';

const spec = JSON.parse(process.argv[2]);
const impl = await import(`./clients/${spec.impl}.mjs`);
const now = () => performance.now();
const echoArgs = { text: ECHO_TEXT };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function check(result, expected) {
  const text = result?.content?.[0]?.text;
  if (text !== expected) throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 300)}`);
}

// Sequential round trips for `ms`; returns ops/s and latency percentiles (ms).
async function sequential(op, ms, keepLatencies, minOps = 1) {
  const lat = keepLatencies ? [] : undefined;
  const start = now();
  const end = start + ms;
  let n = 0;
  let t = start;
  while (t < end || n < minOps) {
    await op();
    const t2 = now();
    lat?.push(t2 - t);
    t = t2;
    n++;
  }
  const out = { ops: n, rps: n / ((t - start) / 1000) };
  if (lat) {
    lat.sort((a, b) => a - b);
    out.p50 = percentile(lat, 50);
    out.p99 = percentile(lat, 99);
  }
  return out;
}

// `concurrency` callers, each looping sequentially, for `ms`.
async function concurrent(op, concurrency, ms) {
  const start = now();
  const end = start + ms;
  let n = 0;
  const worker = async () => {
    while (now() < end) {
      await op();
      n++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ops: n, rps: n / ((now() - start) / 1000) };
}

async function withStdio(serverArgs, fn) {
  const client = await impl.connectStdio(serverCommand(spec.impl, ['--transport=stdio', ...serverArgs]));
  const pid = client.pid ?? childPids()[0];
  try {
    return await fn(client, pid);
  } finally {
    await client.close();
  }
}

async function withHttp(serverArgs, fn, headersFor, mode = spec.mode) {
  const server = await startHttpServer(spec.impl, ['--transport=http', `--mode=${mode}`, ...serverArgs]);
  try {
    const headers = headersFor ? await headersFor(server.url) : undefined;
    const client = await impl.connectHttp(server.url, { mode, ...(headers ? { headers } : {}) });
    try {
      return await fn(client, server.child.pid);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
}

// CPU time per operation of client and server during `fn` (us): steadier than wall time when other work
// shares the machine. Client from process.cpuUsage(), server from /proc/<pid>/stat (all threads).
async function withCpu(pid, fn) {
  const client0 = process.cpuUsage();
  const server0 = cpuTicks(pid);
  const r = await fn();
  const client = process.cpuUsage(client0);
  const serverUs = (cpuTicks(pid) - server0) * TICK_US;
  return { ...r, clientCpuUs: (client.user + client.system) / r.ops, serverCpuUs: serverUs / r.ops };
}

// Runs the ops in alternating blocks (4 rounds) for `ms` in total; per op the pooled calls/s. Each block is
// `run(op, blockMs)`: sequential calls unless told otherwise.
async function alternate(ops, ms, run = (op, blockMs) => sequential(op, blockMs, false)) {
  const rounds = 4;
  const totals = ops.map(() => ({ ops: 0, s: 0 }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, op] of ops.entries()) {
      const res = await run(op, ms / rounds / ops.length);
      totals[i].ops += res.ops;
      totals[i].s += res.ops / res.rps;
    }
  }
  return totals.map((t) => ({ rps: t.ops / t.s }));
}

// As `alternate`, also measuring CPU per op: this process's during each block, plus the block's server's. The
// order is reversed every other round, so no op always runs first or always follows the same one.
async function alternateCpu(
  ops,
  pids,
  ms,
  run = (op, blockMs) => sequential(op, blockMs, false),
  rounds = 4,
) {
  const totals = ops.map(() => ({ ops: 0, s: 0, cpuUs: 0 }));
  const indices = [...ops.keys()];
  for (let r = 0; r < rounds; r++) {
    for (const i of r % 2 ? [...indices].reverse() : indices) {
      const op = ops[i];
      const client0 = process.cpuUsage();
      const server0 = cpuTicks(pids[i]);
      const res = await run(op, ms / rounds / ops.length);
      const client = process.cpuUsage(client0);
      totals[i].cpuUs += client.user + client.system + (cpuTicks(pids[i]) - server0) * TICK_US;
      totals[i].ops += res.ops;
      totals[i].s += res.ops / res.rps;
    }
  }
  return totals.map((t) => ({ rps: t.ops / t.s, cpuUs: t.cpuUs / t.ops }));
}

const AGENT_TURNS_PER_RUN = 10;

// One agent run (AGENT_TURNS_PER_RUN tool turns and a final answer) over three raw stdio servers: agentforge's
// Agent + McpHost, or the loop written by hand on the implementation's client.
async function agentLoopOf(implName, clientImpl) {
  const commands = [1, 2, 3].map(() => serverCommand('raw', ['--transport=stdio']));
  const model = zeroLatencyModel(AGENT_TURNS_PER_RUN);
  let loop;
  if (implName === 'agentforge') loop = await agentforgeLoop(commands, model, AGENT_TURNS_PER_RUN + 1);
  else {
    const servers = await Promise.all(
      commands.map(async (c, i) => ({ name: `s${i + 1}`, client: await clientImpl.connectStdio(c) })),
    );
    loop = {
      run: await handLoop(servers, model, AGENT_TURNS_PER_RUN + 1),
      close: () => Promise.all(servers.map((s) => s.client.close())),
    };
  }
  const once = async () => {
    const r = await loop.run('go');
    if (r.steps !== AGENT_TURNS_PER_RUN + 1 || r.answer !== 'done')
      throw new Error(`run ended: ${JSON.stringify(r)}`);
  };
  return { once, close: loop.close };
}

const echo = (client) => async () => check(await client.call('echo', echoArgs), ECHO_TEXT);
// Warm-up: `warmupMs` and at least `warmupCalls` calls (the JIT tiers up by invocation counts, not by time:
// on this machine agentforge's HTTP pair reaches its steady rate after about 6,000 calls, raw's after about
// 4,000), for at most `warmupMaxMs` (an implementation at a few hundred calls/s is steady long before).
async function warm(op) {
  const start = now();
  const minEnd = start + spec.warmupMs;
  const maxEnd = start + (spec.warmupMaxMs ?? spec.warmupMs);
  const minCalls = spec.warmupCalls ?? 0;
  let n = 0;
  for (let t = start; t < minEnd || (n < minCalls && t < maxEnd); t = now()) {
    await op();
    n++;
  }
}

// The HTTP concurrent cell's warm-up: the sequential one, then the measured number of callers for the warm-up's
// time, as the era cell warms its blocks. The callers open the keep-alive pool's other sockets and run the paths
// one caller does not; warmed with one caller, the measured window paid for them (rates of 3,000-18,000 calls/s
// between cells minutes apart, against 24,000-30,000 warmed so; NOTES-perf.md, the ninth round).
async function warmConcurrent(op) {
  await warm(op);
  await concurrent(op, spec.concurrency, spec.warmupMs);
}

// Requests are held in steps (`spec.held`, totals in increasing order), each side read after each step against
// the same reading before the first: the last step's deltas are the result's plain fields, the first step's the
// same names prefixed `early`. They are sent `HELD_BATCH` at a time, each batch held by the server before the
// next is sent, as long calls pile up on a busy connection: sent in one burst, up to all their bytes wait in the
// pipe at once, and what the allocator keeps of that after it is freed (0-50 MB of client RSS for 100,000, from
// one cell to the next) outweighed the requests' own state (bench/RESULTS.md, "Memory per 1,000 in-flight").
const HELD_BATCH = 1_000;
async function heldMemory(client, pid) {
  const callText = async (name, args) => (await client.call(name, args)).content[0].text;
  // The server collects garbage, then reports its V8 heap in use and its young generation's resident bytes.
  const serverHeap = async () => {
    const [, heap, young] = (await client.call('count', { gc: true })).content;
    return { heap: Number(heap.text), young: Number(young.text) };
  };
  // Two collections, as the client's own (clientMemory): RSS read after the second.
  const serverMemory = async () => {
    await serverHeap();
    return { ...(await serverHeap()), rssKB: memKB(pid, 'VmRSS') };
  };
  await warm(echo(client));
  // Warm the hold path too, so the measured delta is per-request state, not first-use code.
  const warmHeld = Array.from({ length: 100 }, () => client.call('hold', {}));
  while (Number(await callText('count', {})) < 100);
  await callText('release', {});
  await Promise.all(warmHeld);
  const server0 = await serverMemory();
  const client0 = await clientMemory();
  const deltas = (server1, client1) => ({
    serverKB: server1.rssKB - server0.rssKB,
    clientKB: client1.rssKB - client0.rssKB,
    serverHeapKB: (server1.heap - server0.heap) / 1024,
    clientHeapKB: (client1.heap - client0.heap) / 1024,
    serverYoungKB: (server1.young - server0.young) / 1024,
    clientYoungKB: (client1.young - client0.young) / 1024,
  });
  const held = [];
  const readings = [];
  for (const total of spec.held) {
    while (held.length < total) {
      const batch = Math.min(HELD_BATCH, total - held.length);
      for (let i = 0; i < batch; i++) held.push(client.call('hold', {}));
      while (Number(await callText('count', {})) < held.length);
    }
    readings.push({ held: total, ...deltas(await serverMemory(), await clientMemory()) });
  }
  if (Number(await callText('release', {})) !== held.length) throw new Error('release count mismatch');
  await Promise.all(held);
  const early = Object.entries(readings[0]).map(([key, value]) => [
    `early${key[0].toUpperCase()}${key.slice(1)}`,
    value,
  ]);
  return { ...readings.at(-1), ...Object.fromEntries(early) };
}

// Two collections a turn of the event loop apart, RSS read after the second. V8 frees a dead ArrayBuffer's memory
// on a helper thread after the collection that found it, and the next collection waits for that to finish: read
// right after one collection, RSS counted the burst's written bytes, all delivered, as memory of the requests
// held in about one cell in two (4 MB of ArrayBuffers for agentforge's client at 10,000; NOTES-perf.md, Q1).
async function clientMemory() {
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  await turn();
  globalThis.gc?.();
  await turn();
  globalThis.gc?.();
  return {
    rssKB: memKB(process.pid, 'VmRSS'),
    heap: process.memoryUsage().heapUsed,
    young: youngGenerationBytes(),
  };
}

const scenarios = {
  'stdio-seq': () =>
    withStdio([], async (client, pid) => {
      await warm(echo(client));
      return withCpu(pid, () => sequential(echo(client), spec.durationMs, true));
    }),
  'stdio-par': () =>
    withStdio([], async (client, pid) => {
      await warm(echo(client));
      const r = await withCpu(pid, () => concurrent(echo(client), spec.concurrency, spec.durationMs));
      return { ...r, serverPeakKB: memKB(pid, 'VmHWM'), clientPeakKB: memKB(process.pid, 'VmHWM') };
    }),
  'stdio-held': () => withStdio([], heldMemory),
  'stdio-list': () =>
    withStdio(['--minimal', `--tools=${spec.tools}`], async (client) => {
      const op = async () => {
        const tools = await client.list();
        if (tools.length !== spec.tools + 1) throw new Error(`listed ${tools.length} tools`);
      };
      await warm(op);
      return sequential(op, spec.durationMs, true, spec.minOps);
    }),
  // Validation cost: the non-trivial schema's call against echo on the same connection, in alternating blocks.
  'stdio-validate': () =>
    withStdio([], async (client) => {
      const order = async () => check(await client.call('order', ORDER_ARGS), '10');
      await warm(order);
      await warm(echo(client));
      const [o, e] = await alternate([order, echo(client)], spec.durationMs);
      return { rps: o.rps, echoRps: e.rps, extraMs: 1000 / o.rps - 1000 / e.rps };
    }),
  // Cost of a call with 1,001 tools registered vs 1: two servers, alternating blocks on one client process.
  'http-tools': () =>
    withHttp(['--minimal'], (one) =>
      withHttp(['--minimal', '--tools=1000'], async (many) => {
        // Warmed in alternation too: a server left idle while the other warms up loses some of its JIT state.
        await alternate([echo(one), echo(many)], 2 * spec.warmupMs);
        const [r1, r1k] = await alternate([echo(one), echo(many)], spec.durationMs);
        return { rps1: r1.rps, rps1k: r1k.rps, penalty: r1.rps / r1k.rps };
      }),
    ),
  // An authorized call (a bearer JWT the server verifies; the same token every call, as a client with a cached
  // token sends it) against an unprotected one: two agentforge servers, alternating blocks on one client.
  'http-auth': async () => {
    const { SignJWT, exportJWK, generateKeyPair } = await import('jose');
    const issuer = 'https://as.bench.invalid';
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' }] };
    const authArg = `--auth=${Buffer.from(JSON.stringify({ issuer, jwks })).toString('base64url')}`;
    const bearerFor = async (url) => {
      const token = await new SignJWT({ scope: 'mcp:tools', client_id: 'bench' })
        .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setAudience(url)
        .setSubject('bench-user')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      return { authorization: `Bearer ${token}` };
    };
    return withHttp(['--minimal'], (plain) =>
      withHttp(
        ['--minimal', authArg],
        async (authed) => {
          await alternate([echo(plain), echo(authed)], 2 * spec.warmupMs);
          const [p, a] = await alternate([echo(plain), echo(authed)], spec.durationMs);
          return { rps: p.rps, rpsAuth: a.rps, overhead: p.rps / a.rps };
        },
        bearerFor,
      ),
    );
  },
  // tools/call with tracing off (nothing installed), installed with no SDK registered, on with an SDK
  // exporting nowhere, and that SDK driven by the least hook doing the same work (its floor); client and server
  // traced alike; four agentforge pairs in alternating blocks, over
  // stdio or (spec.transport 'http') Streamable HTTP. CPU per call (client + server) is the steadier figure on
  // a shared machine; calls/s is reported too.
  'otel-overhead': async () => {
    const { clientTracing } = await import('../dist/otel/index.js');
    const { floorClient } = await import('./lib/otel-floor-hooks.mjs');
    const { otelOptions } = await import('./lib/otel.mjs');
    const pairs = [];
    const servers = [];
    const middlewareFor = async (mode) =>
      mode === 'floor' ? floorClient(await otelOptions('sdk')) : clientTracing(await otelOptions(mode));
    try {
      for (const mode of [undefined, 'installed', 'sdk', 'floor']) {
        const serverArgs = mode ? [`--otel=${mode}`] : [];
        const extra = mode ? { middleware: [await middlewareFor(mode)] } : {};
        if (spec.transport === 'http') {
          const server = await startHttpServer('agentforge', [
            '--transport=http',
            '--mode=modern',
            ...serverArgs,
          ]);
          servers.push(server);
          const client = await impl.connectHttp(server.url, { mode: 'modern', extra });
          pairs.push({ client, pid: server.child.pid });
          continue;
        }
        const before = new Set(childPids());
        const client = await impl.connectStdio(
          serverCommand('agentforge', ['--transport=stdio', ...serverArgs]),
          extra,
        );
        pairs.push({ client, pid: childPids().find((pid) => !before.has(pid)) });
      }
      const ops = pairs.map(({ client }) => echo(client));
      await alternate(ops, 2 * spec.warmupMs);
      const [off, installed, on, floor] = await alternateCpu(
        ops,
        pairs.map((p) => p.pid),
        4 * spec.durationMs,
      );
      return {
        rps: off.rps,
        rpsOn: on.rps,
        cpuOffUs: off.cpuUs,
        cpuInstalledUs: installed.cpuUs,
        cpuOnUs: on.cpuUs,
        cpuFloorUs: floor.cpuUs,
        installedOverhead: installed.cpuUs / off.cpuUs,
        onOverhead: on.cpuUs / off.cpuUs,
        floorOverhead: floor.cpuUs / off.cpuUs,
      };
    } finally {
      await Promise.all(pairs.map(({ client }) => client.close()));
      await Promise.all(servers.map((server) => server.stop()));
    }
  },
  'http-seq': () =>
    withHttp(spec.serverArgs ?? [], async (client, pid) => {
      await warm(echo(client));
      return withCpu(pid, () => sequential(echo(client), spec.durationMs, true));
    }),
  'http-par': () =>
    withHttp(spec.serverArgs ?? [], async (client, pid) => {
      await warmConcurrent(echo(client));
      return withCpu(pid, () => concurrent(echo(client), spec.concurrency, spec.durationMs));
    }),
  // The legacy era (2025-11-25 session) against the modern one (2026-07-28), each on its own server, in
  // alternating blocks from one client process: cells run minutes apart differ by more than the eras do (raw,
  // whose code is the same in both modes, read 0.71 between its two cells in one full run).
  'http-eras': () =>
    withHttp(
      [],
      (modern, modernPid) =>
        withHttp(
          [],
          async (legacy, legacyPid) => {
            const ops = [echo(modern), echo(legacy)];
            const run = spec.concurrency
              ? (op, blockMs) => concurrent(op, spec.concurrency, blockMs)
              : (op, blockMs) => sequential(op, blockMs, false);
            for (const op of ops) await warm(op);
            await alternate(ops, 2 * spec.warmupMs, run);
            // 8 rounds of 200 ms blocks: shorter blocks or fewer rounds left raw's own two identical
            // connections 0.84-1.14 apart on a loaded host.
            const [m, l] = await alternateCpu(ops, [modernPid, legacyPid], 4 * spec.durationMs, run, 8);
            return { rps: l.rps, modernRps: m.rps, ratio: l.rps / m.rps, cpuRatio: l.cpuUs / m.cpuUs };
          },
          undefined,
          'legacy',
        ),
      undefined,
      'modern',
    ),
  'gateway-call': () => gatewayCall({ impl, spec, echo, sequential, concurrent }),
  'gateway-list': () => gatewayList({ impl, spec, sequential }),
  'tool-search-bytes': () => toolSearchBytes(),
  startup: async () => {
    const times = [];
    for (let i = 0; i < spec.repeat; i++) {
      const start = now();
      const client = await impl.connectStdio(serverCommand(spec.impl, ['--transport=stdio']));
      const tools = await client.list();
      times.push(now() - start);
      if (tools.length !== 5) throw new Error(`startup listed ${tools.length} tools`);
      await client.close();
    }
    times.sort((a, b) => a - b);
    return { ms: times[Math.floor(times.length / 2)], times };
  },
  agent: async () => {
    const loop = await agentLoopOf(spec.impl, impl);
    try {
      // A warm-up of its own (agentWarmupMs): after 1.5 s, optimizing compiles and a major GC still fell
      // inside the measured window, on V8's helper threads (hostHelperCpuUsPerTurn says how much is left).
      const warmEnd = now() + (spec.agentWarmupMs ?? spec.warmupMs);
      do await loop.once();
      while (now() < warmEnd);
      const runs = Math.max(1, Math.round(spec.turns / AGENT_TURNS_PER_RUN));
      const start = now();
      const helpers0 = otherThreadsCpuUs();
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < runs; i++) await loop.once();
      const cpu = process.cpuUsage(cpu0);
      const helpers = otherThreadsCpuUs() - helpers0;
      const turns = runs * AGENT_TURNS_PER_RUN;
      return {
        msPerTurn: (now() - start) / turns,
        hostCpuUsPerTurn: (cpu.user + cpu.system) / turns,
        hostHelperCpuUsPerTurn: helpers / turns,
        turns,
      };
    } finally {
      await loop.close();
    }
  },
  // The loop against raw's hand loop in one process, in alternating blocks (as `http-eras` does for the eras):
  // separate cells minutes apart differed by more than the target's 15% for the same code. Each loop has its
  // own three servers; CPU per turn is this process's during each of its blocks, wall time per turn the blocks'
  // own. Every implementation's loop is paired so, for the SDK comparison as for the target.
  'agent-pair': async () => {
    const rawImpl = await import('./clients/raw.mjs');
    const [base, loop] = [await agentLoopOf('raw', rawImpl), await agentLoopOf(spec.impl, impl)];
    try {
      const block = (l) => async (ms) => {
        const start = now();
        const end = start + ms;
        let runs = 0;
        const cpu0 = process.cpuUsage();
        let t = start;
        do {
          await l.once();
          runs++;
          t = now();
        } while (t < end);
        const cpu = process.cpuUsage(cpu0);
        return { turns: runs * AGENT_TURNS_PER_RUN, cpuUs: cpu.user + cpu.system, ms: t - start };
      };
      const blocks = [block(base), block(loop)];
      const warmMs = spec.agentWarmupMs ?? spec.warmupMs;
      for (let r = 0; r < 4; r++) for (const b of blocks) await b(warmMs / 4);
      // 16 rounds of blocks of durationMs / 4, the order reversed every other round (as alternateCpu): neither loop
      // always runs first or always follows the other's garbage.
      const rounds = 16;
      const totals = blocks.map(() => ({ turns: 0, cpuUs: 0, ms: 0 }));
      for (let r = 0; r < rounds; r++) {
        for (const i of r % 2 ? [1, 0] : [0, 1]) {
          const b = blocks[i];
          const res = await b(spec.durationMs / 4);
          totals[i].turns += res.turns;
          totals[i].cpuUs += res.cpuUs;
          totals[i].ms += res.ms;
        }
      }
      const [rawUs, loopUs] = totals.map((t) => t.cpuUs / t.turns);
      const [rawMs, loopMs] = totals.map((t) => t.ms / t.turns);
      return {
        rawCpuUsPerTurn: rawUs,
        hostCpuUsPerTurn: loopUs,
        ratio: loopUs / rawUs,
        msPerTurn: loopMs,
        wallRatio: loopMs / rawMs,
      };
    } finally {
      await Promise.all([base.close(), loop.close()]);
    }
  },
};

const result = await (scenarios[spec.scenario] ?? ((s) => scaleOutScenarios[s.scenario](s)))(spec);
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
process.exit(0);
