// The agent cell's loops side by side in one process, for A/B comparisons on a loaded machine:
// `node bench/agent-ab.mjs [rounds] [runs per block] variant ...` where a variant is `raw` (the hand loop on the
// raw client), `mcp` (the hand loop on agentforge's McpClient), `sdk1` / `sdk2` (the hand loop on an official
// SDK's client), `mcp:<dir>` (the same on the McpClient of the
// checkout at <dir>, built) or `agent:<dir>` (agentforge's Agent + McpHost from the checkout at <dir>, e.g. a
// worktree of the commit to compare with, built). Each variant has its own three raw stdio servers; blocks of
// runs alternate (order reversed every round) and each block's host CPU is read, so every round compares the
// variants under the same load. Prints each variant's CPU per turn (median [min-max] over blocks; user and system
// apart, and the part on the process's other threads, which is V8's compiler and GC), the median of its per-round
// ratios to the first variant, its context switches per turn, and its wall time per turn (the agent row's
// figure: CPU plus the waits for the servers). Separate cell processes, as the bench runs
// them, swing by 30% between runs at load 10 and more; ratios of interleaved blocks hold to a few percent.
// Each variant is first warmed up for WARMUP_MS (default 5000, the agent cell's warm-up in full runs).
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { TURNS_PER_RUN, openLoop } from './lib/agent-variants.mjs';
import { otherThreadsCpuUs } from './lib/proc.mjs';

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
// Per variant, one entry per block: CPU per turn (user, system, the process's other threads) and context
// switches per turn. No GC is forced between blocks: a block pays for the garbage of whatever ran before it,
// as a turn in a real host does, and alternation spreads that evenly.
const FIELDS = ['cpu', 'wall', 'user', 'sys', 'helpers', 'vcsw', 'ivcsw'];
const blocks = new Map(variants.map((variant) => [variant, Object.fromEntries(FIELDS.map((f) => [f, []]))]));
function usage() {
  const r = process.resourceUsage();
  return {
    user: r.userCPUTime,
    sys: r.systemCPUTime,
    helpers: otherThreadsCpuUs(),
    vcsw: r.voluntaryContextSwitches,
    ivcsw: r.involuntaryContextSwitches,
    wall: performance.now() * 1000,
  };
}
try {
  for (const loop of loops.values()) {
    const warmEnd = performance.now() + Number(process.env.WARMUP_MS ?? 5000);
    do await runs(loop, 10);
    while (performance.now() < warmEnd);
  }
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 ? [...variants].reverse() : variants) {
      const start = usage();
      await runs(loops.get(variant), block);
      const end = usage();
      const turns = block * TURNS_PER_RUN;
      const own = blocks.get(variant);
      for (const f of FIELDS.slice(1)) own[f].push((end[f] - start[f]) / turns);
      own.cpu.push((end.user - start.user + end.sys - start.sys) / turns);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const spread = (values) => {
    const s = [...values].sort((a, b) => a - b);
    return `${median(s).toFixed(1)} [${s[0].toFixed(1)}-${s.at(-1).toFixed(1)}]`;
  };
  const first = blocks.get(variants[0]);
  for (const variant of variants) {
    const own = blocks.get(variant);
    const ratio = median(own.cpu.map((value, i) => value / first.cpu[i]));
    const wallRatio = median(own.wall.map((value, i) => value / first.wall[i]));
    console.log(
      `${variant}: cpu ${spread(own.cpu)} us/turn (x${ratio.toFixed(3)} of ${variants[0]}, per round); ` +
        `user ${spread(own.user)} sys ${spread(own.sys)} other threads ${spread(own.helpers)}; ` +
        `switches/turn voluntary ${median(own.vcsw).toFixed(2)} involuntary ${median(own.ivcsw).toFixed(2)}; ` +
        `wall ${spread(own.wall)} us/turn (x${wallRatio.toFixed(3)})`,
    );
  }
} finally {
  for (const loop of loops.values()) await loop.close();
}
process.exit(0);
