// The gateway rows: a tools/call through the gateway against the same call made directly over HTTP (raw: the
// same pair of calls with the raw client and server at both ends and the raw forwarder,
// bench/servers/raw-gateway.mjs, in the gateway's place: the floor of a hop), tools/list of 10 upstreams x 100
// tools served from the gateway's registry (the upstreams' CPU during the measurement shows nothing is fanned
// out), and the host's tool-definition bytes per model request with and without tool search (500 tools on 10
// servers).
import { childPids, cpuTicks, serverCommand, startHttpServer, TICK_US } from './proc.mjs';

async function startGateway(upstreams, extra = []) {
  const encoded = Buffer.from(JSON.stringify(upstreams)).toString('base64url');
  return startHttpServer('gateway', [`--upstreams=${encoded}`, ...extra]);
}

/**
 * CPU (us) per call of the processes a call goes through: this client and the given server processes
 * (`total`), and of each server process (`each`).
 */
async function cpuPerCall(pids, op, run, ms) {
  const client0 = process.cpuUsage();
  const ticks0 = pids.map(cpuTicks);
  const r = await run(op, ms);
  const client = process.cpuUsage(client0);
  const each = pids.map((pid, i) => ((cpuTicks(pid) - ticks0[i]) * TICK_US) / r.ops);
  return { total: (client.user + client.system) / r.ops + each.reduce((a, b) => a + b, 0), each };
}

const GATEWAY_WARM_CALLS = 12_000;

/** Runs `op` (by `run`) for at least `ms` and at least `calls` calls. */
async function warmUp(op, run, ms, calls) {
  let done = 0;
  const started = performance.now();
  while (done < calls || performance.now() - started < ms) done += (await run(op, 250)).ops;
}

/** `ops` in alternating blocks (4 rounds) for `ms` in total, each block run by `run`; per op the pooled calls/s. */
async function alternate(ops, run, ms) {
  const totals = ops.map(() => ({ ops: 0, s: 0 }));
  for (let round = 0; round < 4; round++) {
    for (const [i, op] of ops.entries()) {
      const res = await run(op, ms / 4 / ops.length);
      totals[i].ops += res.ops;
      totals[i].s += res.ops / res.rps;
    }
  }
  return totals.map((t) => ({ rps: t.ops / t.s }));
}

/**
 * Alternating blocks of direct and through-the-gateway echo calls on one client process; then the CPU per call
 * of every process on each path (steadier than calls/s when other work shares the machine). The direct call
 * is always over HTTP; `spec.upstream: 'stdio'` has the gateway spawn its own upstream over stdio instead of
 * reaching the HTTP one. `spec.impl` 'raw': the raw forwarder in the gateway's place. `spec.concurrency`: that
 * many callers on each path at once (each looping sequentially), instead of one.
 */
export async function gatewayCall({ impl, spec, echo, sequential, concurrent }) {
  const run = spec.concurrency
    ? (op, ms) => concurrent(op, spec.concurrency, ms)
    : (op, ms) => sequential(op, ms, false);
  const upstream = await startHttpServer(spec.impl, ['--transport=http', '--mode=modern', '--minimal']);
  const stdio = spec.upstream === 'stdio';
  const gateway =
    spec.impl === 'raw'
      ? await startHttpServer('raw-gateway', [`--upstream=${stdio ? 'stdio' : upstream.url}`])
      : await startGateway({ up: stdio ? 'stdio' : upstream.url }, ['--exact']);
  // The processes a call through the gateway runs in: the gateway, and its upstream (its child on stdio).
  const behind = stdio
    ? [gateway.child.pid, ...childPids(gateway.child.pid)]
    : [upstream.child.pid, gateway.child.pid];
  const direct = await impl.connectHttp(upstream.url, { mode: 'modern' });
  const through = await impl.connectHttp(gateway.url, { mode: 'modern' });
  try {
    // Warm by count as well as time: the path through the gateway (an HTTP server, the forwarder and an
    // upstream client in one process) takes about 8,000 calls to reach its steady rate (1,967 us a call over
    // the first 2,000, 350 us from the 10,000th), so a warm-up of a few seconds measured the JIT's ramp.
    await warmUp(echo(direct), run, spec.warmupMs, GATEWAY_WARM_CALLS / 2);
    await warmUp(echo(through), run, spec.warmupMs, GATEWAY_WARM_CALLS);
    await alternate([echo(direct), echo(through)], run, 2 * spec.warmupMs);
    const [d, g] = await alternate([echo(direct), echo(through)], run, spec.durationMs);
    const direct1 = await cpuPerCall([upstream.child.pid], echo(direct), run, spec.durationMs);
    const through1 = await cpuPerCall(behind, echo(through), run, spec.durationMs);
    const cpuDirect = direct1.total;
    const cpuGateway = through1.total;
    return {
      rpsDirect: d.rps,
      rpsGateway: g.rps,
      overhead: d.rps / g.rps,
      cpuDirect,
      cpuGateway,
      cpuOverhead: cpuGateway / cpuDirect,
      // The gateway process alone: against cpuDirect (a whole HTTP client + server pair), what the hop
      // spends, which holds one HTTP server and one client of its own.
      cpuGatewayProcess: through1.each[stdio ? 0 : 1],
    };
  } finally {
    await Promise.all([direct.close(), through.close()]);
    await gateway.stop();
    await upstream.stop();
  }
}

/** tools/list through the gateway over 10 upstreams of 100 filler tools (+ echo) each. */
export async function gatewayList({ impl, spec, sequential }) {
  const upstreams = await Promise.all(
    Array.from({ length: 10 }, () =>
      startHttpServer('agentforge', ['--transport=http', '--mode=modern', '--minimal', '--tools=100']),
    ),
  );
  const gateway = await startGateway(Object.fromEntries(upstreams.map((u, i) => [`s${i}`, u.url])));
  const client = await impl.connectHttp(gateway.url, { mode: 'modern' });
  try {
    const op = async () => {
      const tools = await client.list();
      if (tools.length !== 1010) throw new Error(`listed ${tools.length} tools`);
    };
    await sequential(op, spec.warmupMs, false);
    const before = upstreams.map((u) => cpuTicks(u.child.pid));
    const result = await sequential(op, spec.durationMs, true, spec.minOps);
    const upstreamUs = upstreams.reduce(
      (sum, u, i) => sum + (cpuTicks(u.child.pid) - before[i]) * TICK_US,
      0,
    );
    return { ...result, upstreamCpuUsPerList: upstreamUs / result.ops };
  } finally {
    await client.close();
    await gateway.stop();
    await Promise.all(upstreams.map((u) => u.stop()));
  }
}

/**
 * The agent over 10 stdio servers of 50 filler tools: a model that (when offered search_tools) searches for
 * one tool, calls it, then answers. Bytes of the tool definitions sent per model request, with and without.
 */
export async function toolSearchBytes() {
  const { Agent, McpHost, parseConfig } = await import('../../dist/agent/index.js');
  const mcpServers = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => {
      const { command, args } = serverCommand('agentforge', ['--transport=stdio', '--minimal', '--tools=49']);
      return [`s${i}`, { command, args, approval: 'auto' }];
    }),
  );
  const host = await McpHost.start(parseConfig({ mcpServers }), {});
  try {
    const total = host.registry.size;
    if (total !== 500) throw new Error(`registered ${total} tools`);
    const measure = async (toolSearch) => {
      const sizes = [];
      const model = searchingModel(sizes);
      const agent = new Agent({ model, host, maxSteps: 5, toolSearch });
      const result = await agent.run('echo the word ping');
      if (result.error) throw new Error(`agent run failed: ${result.error.message}`);
      return sizes.reduce((a, b) => a + b, 0) / sizes.length;
    };
    const without = await measure(false);
    const withSearch = await measure({ enabled: true });
    return { bytesWithout: without, bytesWith: withSearch, saving: without / withSearch, tools: total };
  } finally {
    await host.close();
  }
}

function searchingModel(sizes) {
  const respond = (request) => {
    sizes.push(Buffer.byteLength(JSON.stringify(request.tools)));
    const last = request.messages.at(-1);
    const names = request.tools.map((t) => t.name);
    if (last.role === 'tool' && !last.name?.startsWith('search'))
      return { message: { role: 'assistant', content: 'done', toolCalls: [] }, stopReason: 'stop' };
    const echo = names.find((n) => n.endsWith('__echo'));
    const call = echo
      ? { id: `c${sizes.length}`, name: echo, arguments: { text: 'ping' } }
      : { id: `c${sizes.length}`, name: 'search_tools', arguments: { query: 'echo the text back' } };
    return { message: { role: 'assistant', content: '', toolCalls: [call] }, stopReason: 'tool_calls' };
  };
  return {
    id: 'bench:searching',
    generate: async (request) => respond(request),
    async *stream(request) {
      yield { type: 'done', response: respond(request) };
    },
  };
}
