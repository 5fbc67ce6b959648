// Profiles one cell: `node bench/profile.mjs <impl> <scenario> [mode]` runs the cell with --cpu-prof on the
// client and every server child, then prints where self time goes (top functions and files) per process.
// Profiles are kept in bench/profiles/ (not committed).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR } from './lib/proc.mjs';
import { ROWS } from './lib/rows.mjs';

const [impl = 'agentforge', cellId = 'stdio-seq', top = '25'] = process.argv.slice(2);
const row = ROWS.find((r) => r.cell === cellId && r.spec);
if (!row)
  throw new Error(`unknown cell ${cellId}; cells: ${[...new Set(ROWS.map((r) => r.cell))].join(', ')}`);
const dir = `${BENCH_DIR}profiles/${impl}-${cellId}`;
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
// WARMUP_MS and TURNS (agent cell) override the defaults; keep PROFILE_SKIP_MS above the warm-up to profile
// the steady state only.
const spec = {
  ...row.spec,
  impl,
  warmupMs: Number(process.env.WARMUP_MS ?? 1500),
  durationMs: 3000,
  repeat: 10,
  turns: Number(process.env.TURNS ?? 6000),
};
// Frames are named relative to the repository root, wherever it is checked out.
const ROOT_URL = pathToFileURL(`${BENCH_DIR}..`).href + '/';
const relative = (url) => (url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : url);
const flags = `--cpu-prof --cpu-prof-dir=${dir}`;
const run = spawnSync(
  process.execPath,
  ['--expose-gc', ...flags.split(' '), `${BENCH_DIR}cell.mjs`, JSON.stringify(spec)],
  {
    env: { ...process.env, BENCH_SERVER_FLAGS: flags },
    encoding: 'utf8',
  },
);
process.stdout.write(run.stdout);
if (run.status !== 0) process.stderr.write(run.stderr);

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
  const self = new Map();
  // Skip the first `skipMs` (module loading, connect, warm-up) unless profiling startup itself.
  const skipUs = cellId === 'startup' ? 0 : Number(process.env.PROFILE_SKIP_MS ?? 2000) * 1000;
  const dt = new Map();
  let clock = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    clock += profile.timeDeltas[i] ?? 0;
    if (clock - profile.startTime < skipUs) continue;
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  const byFile = new Map();
  for (const node of profile.nodes) {
    const t = dt.get(node.id) ?? 0;
    total += t;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = relative(url);
    const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + t);
    const f = where || functionName;
    byFile.set(f, (byFile.get(f) ?? 0) + t);
  }
  const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;
  // Percentages are of busy (non-idle) time.
  const pct = (t) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  self.delete([...self.keys()].find((k) => k.startsWith('(idle)')));
  byFile.delete('(idle)');
  console.log(
    `\n== ${file}: ${(total / 1000).toFixed(0)} ms sampled, ${((100 * idle) / total).toFixed(0)}% idle; shares of busy time`,
  );
  for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
    console.log(`${pct(t)}  ${k}`);
  console.log('  -- by file');
  for (const [k, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${pct(t)}  ${k}`);
  console.log('  -- inclusive (self + callees), agentforge code only');
  for (const [k, t] of inclusive(profile, dt, '  dist/').slice(0, 15)) console.log(`${pct(t)}  ${k}`);
}

// Inclusive time per function (each sample counted once per distinct function on its stack).
function inclusive(profile, dt, filter) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map();
  for (const [id, t] of dt) {
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const { functionName, url, lineNumber } = byId.get(cur).callFrame;
      const key = `${functionName || '(anonymous)'}  ${relative(url)}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.set(key, (out.get(key) ?? 0) + t);
    }
  }
  return [...out].filter(([k]) => k.includes(filter)).sort((a, b) => b[1] - a[1]);
}
