// Profiles one cell: `node bench/profile.mjs <impl> <scenario> [mode]` runs the cell with --cpu-prof on the
// client and every server child, then prints where self time goes (top functions and files) per process.
// Profiles are kept in bench/profiles/ (not committed).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { BENCH_DIR } from './lib/proc.mjs';
import { ROWS } from './lib/rows.mjs';

const [impl = 'agentforge', cellId = 'stdio-seq', top = '25'] = process.argv.slice(2);
const row = ROWS.find((r) => r.cell === cellId && r.spec);
if (!row) throw new Error(`unknown cell ${cellId}; cells: ${[...new Set(ROWS.map((r) => r.cell))].join(', ')}`);
const dir = `${BENCH_DIR}profiles/${impl}-${cellId}`;
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const spec = { ...row.spec, impl, warmupMs: 500, durationMs: 3000, repeat: 10, turns: 1000 };
const flags = `--cpu-prof --cpu-prof-dir=${dir}`;
const run = spawnSync(process.execPath, ['--expose-gc', ...flags.split(' '), `${BENCH_DIR}cell.mjs`, JSON.stringify(spec)], {
  env: { ...process.env, BENCH_SERVER_FLAGS: flags },
  encoding: 'utf8',
});
process.stdout.write(run.stdout);
if (run.status !== 0) process.stderr.write(run.stderr);

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
  const self = new Map();
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  const byFile = new Map();
  for (const node of profile.nodes) {
    const t = dt.get(node.id) ?? 0;
    total += t;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/^file:\/\/\/work\/main\//, '').replace(/^node:/, 'node:');
    const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + t);
    const f = where || functionName;
    byFile.set(f, (byFile.get(f) ?? 0) + t);
  }
  const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
  const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, t]) => a + t, 0);
  console.log(`\n== ${file} (${(total / 1000).toFixed(0)} ms sampled, idle ${pct(idle)})`);
  for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(`${pct(t)}  ${k}`);
  console.log('  -- by file');
  for (const [k, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${pct(t)}  ${k}`);
}
