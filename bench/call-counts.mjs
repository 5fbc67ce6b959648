// The client's work per stdio tools/call in counts that do not move with the machine's load:
// `node --expose-gc bench/call-counts.mjs [raw|agentforge ...]` connects each client to its own bench server
// (as the stdio cells do) and prints, sequential and with 64 calls in flight:
// - promises created per call (an async_hooks PROMISE init counter);
// - promise reactions run per call (the hook's `before` callbacks);
// - bytes allocated per call (the sampling heap profiler, collected objects included, 128 B interval);
// - client CPU per call with no hook or profiler attached (on a loaded machine, compare within one run only).
// CALLS (default 20000) sets the calls of each phase.
import { bytesAllocated, countAsync } from './lib/counting.mjs';
import { serverCommand } from './lib/proc.mjs';
import { echoCalls } from './lib/tools.mjs';

const CALLS = Number(process.env.CALLS ?? 20_000);
const impls = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['raw', 'agentforge'];
const calls = echoCalls;

async function promisesPerCall(client, inFlight) {
  const { PROMISE, reactions } = await countAsync(() => calls(client, inFlight, CALLS));
  return { promises: PROMISE / CALLS, reactions: reactions / CALLS };
}

async function bytesPerCall(client, inFlight) {
  return (await bytesAllocated(() => calls(client, inFlight, CALLS), 128)) / CALLS;
}

async function cpuPerCall(client, inFlight) {
  globalThis.gc?.();
  const start = process.cpuUsage();
  await calls(client, inFlight, CALLS);
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / CALLS;
}

for (const name of impls) {
  const impl = await import(`./clients/${name}.mjs`);
  const client = await impl.connectStdio(serverCommand(name, ['--transport=stdio']));
  try {
    for (const inFlight of [1, 64]) {
      await calls(client, inFlight, CALLS);
      const { promises, reactions } = await promisesPerCall(client, inFlight);
      const bytes = await bytesPerCall(client, inFlight);
      const cpuUs = await cpuPerCall(client, inFlight);
      console.log(
        `${name.padEnd(10)} in flight ${String(inFlight).padStart(2)}: promises ${promises.toFixed(2)}  ` +
          `reactions ${reactions.toFixed(2)}  bytes ${bytes.toFixed(0)} B  cpu ${cpuUs.toFixed(1)} us  (per call)`,
      );
    }
  } finally {
    await client.close();
  }
}
