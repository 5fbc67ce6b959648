// Whole HTTP pairs (client + server), implementations taking turns in one client process, each with its own
// server child: sequential calls in blocks of `batch` for `rounds` rounds. Prints per implementation calls/s
// (median of block rates), latency p50/p90/p99 and client/server CPU per call over all blocks.
//   node bench/pair-ab.mjs [modern|legacy] [impls=raw,agentforge] [rounds=20] [batch=500]
// An implementation is `name`, `name:<checkout dir>` (that checkout's client and server) and may end in
// `@modern` or `@legacy` (its own era), e.g. `agentforge@modern,agentforge@legacy`.
import { performance } from 'node:perf_hooks';
import { cpuTicks, startHttpServer, TICK_US } from './lib/proc.mjs';
import { ECHO_TEXT } from './lib/tools.mjs';

const [mode = 'modern', implsArg = 'raw,agentforge', roundsArg = '20', batchArg = '500'] =
  process.argv.slice(2);
const entries = [];
for (const [i, spec] of implsArg.split(',').entries()) {
  const [named, era = mode] = spec.split('@');
  const [name, dir] = named.split(':');
  const impl = await import(dir ? `${dir}/bench/clients/${name}.mjs` : `./clients/${name}.mjs`);
  const server = await startHttpServer(name, ['--transport=http', `--mode=${era}`]);
  const client = await impl.connectHttp(server.url, { mode: era });
  entries.push({ label: `${spec}#${i}`, client, server, lat: [], rates: [], cpuC: 0, cpuS: 0, n: 0 });
}
const args = { text: ECHO_TEXT };
for (const e of entries) for (let i = 0; i < 4000; i++) await e.client.call('echo', args);
const rounds = Number(roundsArg);
const batch = Number(batchArg);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [...entries].reverse() : entries;
  for (const e of order) {
    const c0 = process.cpuUsage();
    const s0 = cpuTicks(e.server.child.pid);
    const t0 = performance.now();
    let t = t0;
    for (let i = 0; i < batch; i++) {
      await e.client.call('echo', args);
      const t2 = performance.now();
      e.lat.push(t2 - t);
      t = t2;
    }
    const c = process.cpuUsage(c0);
    e.cpuC += c.user + c.system;
    e.cpuS += (cpuTicks(e.server.child.pid) - s0) * TICK_US;
    e.n += batch;
    e.rates.push(batch / ((t - t0) / 1000));
  }
}
const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
for (const e of entries) {
  e.lat.sort((a, b) => a - b);
  e.rates.sort((a, b) => a - b);
  const row = {
    impl: e.label,
    rps: Math.round(q(e.rates, 0.5)),
    p50: +q(e.lat, 0.5).toFixed(3),
    p90: +q(e.lat, 0.9).toFixed(3),
    p99: +q(e.lat, 0.99).toFixed(3),
    p999: +q(e.lat, 0.999).toFixed(3),
    clientUs: Math.round(e.cpuC / e.n),
    serverUs: Math.round(e.cpuS / e.n),
  };
  console.log(`RESULT ${JSON.stringify(row)}`);
  await e.client.close();
  await e.server.stop();
}
