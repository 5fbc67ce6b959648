// The client's CPU per stdio tools/call, builds side by side in one process: each directory's McpClient (its
// dist/) drives its own bench server child; the clients take turns of BLOCK calls (IN_FLIGHT at a time) for
// ROUNDS rounds, and each turn's process CPU (user + system, this process only: the client side) is charged to
// its build. Load drift weighs on every build alike; the figure is each build's median per-turn CPU per call
// and the median of the per-round ratios to the first build.
//
//   node --expose-gc bench/client-ab.mjs <dir> <dir> ...   (raw: the raw client, bench/clients/raw.mjs)
// IN_FLIGHT (default 64), BLOCK (default 6400 calls), ROUNDS (default 20).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverCommand } from './lib/proc.mjs';
import { echoCalls } from './lib/tools.mjs';

const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 64);
const BLOCK = Number(process.env.BLOCK ?? 6400);
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const dirs = process.argv.slice(2);
if (dirs.length < 2) throw new Error('usage: client-ab.mjs <dir|raw> <dir|raw> ...');

async function open(dir) {
  const name = dir === 'raw' ? 'raw' : 'agentforge';
  const base = dir === 'raw' ? resolve(import.meta.dirname, '..') : resolve(dir);
  const impl = await import(pathToFileURL(`${base}/bench/clients/${name}.mjs`).href);
  const { command, args: serverArgs } = serverCommand(name, ['--transport=stdio']);
  // The server of the same build: its script path under that directory.
  const script = serverArgs.findIndex((a) => a.endsWith(`servers/${name}.mjs`));
  serverArgs[script] = `${base}/bench/servers/${name}.mjs`;
  return impl.connectStdio({ command, args: serverArgs });
}

const calls = (client, count) => echoCalls(client, IN_FLIGHT, count);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const clients = [];
for (const dir of dirs) clients.push(await open(dir));
for (const client of clients) await calls(client, 4 * BLOCK);
const perCall = dirs.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  // Rotate who goes first, so neither build always follows the same one.
  for (let k = 0; k < clients.length; k++) {
    const i = (round + k) % clients.length;
    const start = process.cpuUsage();
    await calls(clients[i], BLOCK);
    const cpu = process.cpuUsage(start);
    perCall[i].push((cpu.user + cpu.system) / BLOCK);
  }
}
for (const client of clients) await client.close();
for (let i = 0; i < dirs.length; i++) {
  const ratios = perCall[i].map((us, round) => us / perCall[0][round]);
  console.log(
    `${dirs[i].padEnd(20)} client CPU per call: median ${median(perCall[i]).toFixed(2)} us ` +
      `(min ${Math.min(...perCall[i]).toFixed(2)}), vs ${dirs[0]}: median round ratio ${median(ratios).toFixed(3)}`,
  );
}
