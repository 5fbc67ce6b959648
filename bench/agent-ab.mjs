// The agent cell's loops side by side in one process, for A/B comparisons on a loaded machine:
// `node bench/agent-ab.mjs [rounds] [runs per block] variant ...` where a variant is `raw` (the hand loop on the
// raw client), `mcp` (the hand loop on agentforge's McpClient), `mcp:<dir>` (the same on the McpClient of the
// checkout at <dir>, built) or `agent:<dir>` (agentforge's Agent + McpHost from the checkout at <dir>, e.g. a
// worktree of the commit to compare with, built). Each variant has its own three raw stdio servers; blocks of
// runs alternate (order reversed every round) and each block's host CPU is read, so every round compares the
// variants under the same load. Prints each variant's median CPU per turn and the median of its per-round
// ratios to the first variant. Separate cell processes, as the bench runs them, swing by 30% between runs at
// load 10 and more; ratios of interleaved blocks hold to a few percent.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TURNS_PER_RUN, openLoop } from './lib/agent-variants.mjs';

const [rounds = 24, block = 60] = process.argv.slice(2, 4).map(Number);
const variants = process.argv.slice(4);
if (variants.length < 2) throw new Error('name two variants or more: raw, mcp, mcp:<dir>, agent:<dir>');

async function open(variant) {
  if (variant.startsWith('mcp:')) {
    // That checkout's variants module: its hand loop on its own McpClient (its dist).
    const other = await import(pathToFileURL(resolve(variant.slice(4), 'bench/lib/agent-variants.mjs')).href);
    return other.openLoop('mcp');
  }
  if (!variant.startsWith('agent:')) return openLoop(variant);
  // That checkout's own loop module, so it loads that checkout's dist.
  const { agentforgeLoop } = await import(
    pathToFileURL(resolve(variant.slice(6), 'bench/lib/agent-loop.mjs')).href
  );
  return openLoop('agent', agentforgeLoop);
}

async function runs(loop, count) {
  for (let i = 0; i < count; i++) {
    const result = await loop.run('go');
    if (result.answer !== 'done') throw new Error(`run ended: ${JSON.stringify(result)}`);
  }
}

const loops = new Map();
for (const variant of variants) loops.set(variant, await open(variant));
try {
  for (const loop of loops.values()) await runs(loop, 300);
  const cpu = new Map(variants.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 ? [...variants].reverse() : variants) {
      // With --expose-gc: no block pays for collecting the previous block's garbage.
      globalThis.gc?.();
      const start = process.cpuUsage();
      await runs(loops.get(variant), block);
      const used = process.cpuUsage(start);
      cpu.get(variant).push((used.user + used.system) / (block * TURNS_PER_RUN));
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const first = cpu.get(variants[0]);
  for (const variant of variants) {
    const own = cpu.get(variant);
    const ratio = median(own.map((value, i) => value / first[i]));
    console.log(
      `${variant}: ${median(own).toFixed(1)} us per turn (x${ratio.toFixed(3)} of ${variants[0]}, per round)`,
    );
  }
} finally {
  for (const loop of loops.values()) await loop.close();
}
process.exit(0);
