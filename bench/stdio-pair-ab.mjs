// Whole stdio pairs (client + its server child), implementations taking turns in one client process: calls in
// blocks of `batch` (`inflight` at a time) for `rounds` rounds, order reversed every round. Prints per
// implementation calls/s (median of block rates), its median per-round ratio to the first, and client CPU per
// call; the stdio rows' figures (bench/run.mjs stdio-seq, stdio-par), with load drift shared by every pair.
//   node bench/stdio-pair-ab.mjs [impls=raw,agentforge] [inflight=1] [rounds=20] [batch=2000]
// An implementation is `name` or `name:<checkout dir>` (that checkout's client and server, built).
import { performance } from 'node:perf_hooks';
import { serverCommand } from './lib/proc.mjs';
import { echoCalls } from './lib/tools.mjs';

const [implsArg = 'raw,agentforge', inflightArg = '1', roundsArg = '20', batchArg = '2000'] =
  process.argv.slice(2);
const [inflight, rounds, batch] = [inflightArg, roundsArg, batchArg].map(Number);

async function open(spec, index) {
  const [name, dir] = spec.split(':');
  const base = dir ?? new URL('..', import.meta.url).pathname;
  const impl = await import(`${base}/bench/clients/${name}.mjs`);
  const { command, args } = serverCommand(name, ['--transport=stdio']);
  // The server of the same checkout: its script path under that directory.
  const script = args.findIndex((a) => a.endsWith(`servers/${name}.mjs`));
  args[script] = `${base}/bench/servers/${name}.mjs`;
  const client = await impl.connectStdio({ command, args });
  return { label: `${spec}#${index}`, client, rates: [], cpu: 0, calls: 0 };
}

const pairs = [];
for (const [i, spec] of implsArg.split(',').entries()) pairs.push(await open(spec, i));
for (const pair of pairs) await echoCalls(pair.client, inflight, 4 * batch);
for (let round = 0; round < rounds; round++) {
  for (const pair of round % 2 ? [...pairs].reverse() : pairs) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await echoCalls(pair.client, inflight, batch);
    pair.rates.push(batch / ((performance.now() - start) / 1000));
    const used = process.cpuUsage(cpu);
    pair.cpu += used.user + used.system;
    pair.calls += batch;
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const pair of pairs) {
  const ratio = median(pair.rates.map((rate, round) => rate / pairs[0].rates[round]));
  console.log(
    `${pair.label.padEnd(24)} ${Math.round(median(pair.rates))} calls/s (x${ratio.toFixed(3)} of ` +
      `${pairs[0].label}, per round)  client CPU ${(pair.cpu / pair.calls).toFixed(1)} us/call`,
  );
  await pair.client.close();
}
process.exit(0);
