// The agent loop's host side counted per turn, in figures that do not depend on the machine's load:
// `node --expose-gc bench/agent-counts.mjs [raw|mcp|agent ...]` runs the agent cell's loop (3 raw stdio
// servers, the zero-latency model, 10 turns per run) as the hand loop on the raw client (`raw`), the same hand
// loop on agentforge's McpClient (`mcp`) and agentforge's Agent + McpHost (`agent`), and prints for each:
// - promises created per turn (an async_hooks PROMISE init counter over the measured turns);
// - promise reactions run per turn (the hook's `before` callbacks: each is one microtask of promise work);
// - bytes allocated per turn (the sampling heap profiler with collected objects included, 256 B interval);
// - host CPU per turn with no hook or profiler attached (on a loaded machine, compare within one run only).
// TURNS (default 2000) sets the measured turns of each phase.
import { bytesAllocated, countAsync } from './lib/counting.mjs';
import { TURNS_PER_RUN, openLoop } from './lib/agent-variants.mjs';

const TURNS = Number(process.env.TURNS ?? 2000);
const variants = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['raw', 'mcp', 'agent'];

async function turns(loop, count) {
  for (let i = 0; i < count / TURNS_PER_RUN; i++) {
    const r = await loop.run('go');
    if (r.answer !== 'done') throw new Error(`run ended: ${JSON.stringify(r)}`);
  }
}

async function promisesPerTurn(loop) {
  const { PROMISE, reactions } = await countAsync(() => turns(loop, TURNS));
  return { promises: PROMISE / TURNS, reactions: reactions / TURNS };
}

async function bytesPerTurn(loop) {
  return (await bytesAllocated(() => turns(loop, TURNS))) / TURNS;
}

async function cpuPerTurn(loop) {
  globalThis.gc?.();
  const start = process.cpuUsage();
  await turns(loop, TURNS);
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / TURNS;
}

for (const variant of variants) {
  const loop = await openLoop(variant);
  try {
    await turns(loop, 3000);
    const { promises, reactions } = await promisesPerTurn(loop);
    const bytes = await bytesPerTurn(loop);
    const cpuUs = await cpuPerTurn(loop);
    console.log(
      `${variant.padEnd(6)} promises ${promises.toFixed(1)}  reactions ${reactions.toFixed(1)}  ` +
        `bytes ${(bytes / 1024).toFixed(1)} KB  cpu ${cpuUs.toFixed(0)} us  (per turn)`,
    );
  } finally {
    await loop.close();
  }
}
process.exit(0);
