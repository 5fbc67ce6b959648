// The HTTP client side alone, implementations taking turns in one process (as bench/http-sides.mjs `client`),
// reported by medians so a burst of load on the machine weighs on one turn, not on the whole figure:
//   node bench/http-client-ab.mjs <modern|legacy> <impl,impl,...> [rounds] [batch] [callers]
// Each implementation's client talks to a stand-in peer of its own (http-sides.mjs `peer`). After 4,000
// warm-up calls each, every round gives each implementation one turn of `batch` calls (order reversed every
// other round), `callers` at a time (1: sequential). Prints per implementation the median CPU per call over
// its turns, and the median over rounds of its turn's CPU per call divided by the first implementation's.
import { fileURLToPath } from 'node:url';
import { startListening } from './lib/proc.mjs';
import { ECHO_TEXT } from './lib/tools.mjs';

const [mode = 'modern', implsArg = 'raw,agentforge', roundsArg = '60', batchArg = '200', callersArg = '1'] =
  process.argv.slice(2);
const impls = implsArg.split(',');
const rounds = Number(roundsArg);
const batch = Number(batchArg);
const callers = Number(callersArg);
const sides = fileURLToPath(new URL('./http-sides.mjs', import.meta.url));

async function clientOf(impl) {
  const { child: peer, url } = await startListening(process.execPath, [sides, 'peer', mode]);
  const client = await (await import(`./clients/${impl}.mjs`)).connectHttp(url, { mode });
  const args = { text: ECHO_TEXT };
  const first = await client.call('echo', args);
  if (first?.content?.[0]?.text !== ECHO_TEXT) throw new Error(`${impl}: ${JSON.stringify(first)}`);
  const caller = async (count) => {
    for (let i = 0; i < count; i++) await client.call('echo', args);
  };
  return {
    impl,
    turn: async (calls) => {
      const per = Math.ceil(calls / callers);
      await Promise.all(Array.from({ length: callers }, () => caller(per)));
      return per * callers;
    },
    close: async () => {
      await client.close();
      peer.kill();
    },
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const clients = [];
try {
  for (const impl of impls) clients.push(await clientOf(impl));
  for (let done = 0; done < 4000; done += 200) for (const one of clients) await one.turn(200);
  const perTurn = new Map(clients.map((one) => [one, []]));
  for (let round = 0; round < rounds; round++) {
    for (const one of round % 2 ? [...clients].reverse() : clients) {
      const before = process.cpuUsage();
      const calls = await one.turn(batch);
      const used = process.cpuUsage(before);
      perTurn.get(one).push((used.user + used.system) / calls);
    }
  }
  const base = perTurn.get(clients[0]);
  for (const one of clients) {
    const turns = perTurn.get(one);
    const ratio = median(turns.map((cpu, i) => cpu / base[i]));
    console.log(
      `RESULT ${JSON.stringify({ mode, callers, impl: one.impl, cpuUs: +median(turns).toFixed(1), ratio: +ratio.toFixed(3) })}`,
    );
  }
} finally {
  for (const one of clients) await one.close();
}
process.exit(0);
