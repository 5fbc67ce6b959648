// `npm run bench`: agentforge against the official SDK v2 and v1 and a raw lower bound, side by side.
// Every measurement runs in a fresh client process (bench/cell.mjs) that starts its own server child;
// implementations are interleaved within each repetition and their order rotates between repetitions.
// Flags: --quick (smoke run, ~1 minute), --reps=N, --only=row1,row2, --impls=raw,sdk2,..., --agent-warmup-ms=N
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR } from './lib/proc.mjs';
import { renderMarkdown, summarize } from './lib/report.mjs';
import { ROWS } from './lib/rows.mjs';

const argv = process.argv.slice(2);
const flag = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = argv.includes('--quick');
const config = quick
  ? {
      reps: 1,
      warmupMs: 100,
      warmupCalls: 0,
      warmupMaxMs: 100,
      durationMs: 250,
      startupSpawns: 2,
      agentTurns: 30,
      agentWarmupMs: 100,
      // The held-request steps of a smoke run (a full run's are the rows' own).
      held: [1_000, 5_000],
    }
  : {
      reps: 3,
      warmupMs: 1500,
      warmupCalls: 8000,
      warmupMaxMs: 5000,
      durationMs: 800,
      startupSpawns: 10,
      agentTurns: 3000,
      // The agent loop's JIT and GC settle later than a connection's: see the row's note.
      agentWarmupMs: 5000,
    };
if (flag('reps')) config.reps = Number(flag('reps'));
if (flag('agent-warmup-ms')) config.agentWarmupMs = Number(flag('agent-warmup-ms'));
config.startupPerRep = Math.ceil(config.startupSpawns / config.reps);

const agentforgeBuilt =
  existsSync(`${BENCH_DIR}../dist/server/index.js`) && existsSync(`${BENCH_DIR}../dist/client/index.js`);
const allImpls = ['raw', 'raw-wire', 'agentforge', 'sdk2', 'sdk1'].filter(
  (i) => i !== 'agentforge' || agentforgeBuilt,
);
// raw-wire (raw sending and reading the 2026-07-28 bytes) runs in the stdio cells only: it says how much of
// agentforge's distance to raw there is the revision's own bytes.
const IMPL_CELLS = { 'raw-wire': ['stdio-seq', 'stdio-par', 'stdio-held'] };
const impls = flag('impls') ? flag('impls').split(',') : allImpls;
const only = flag('only')?.split(',');
const rows = ROWS.filter((r) => !only || only.includes(r.id) || only.includes(r.cell));

function runCell(spec) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', `${BENCH_DIR}cell.mjs`, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (line) return resolve(JSON.parse(line.slice(7)));
      const why = signal ? `killed (${signal})` : `exit ${code}`;
      resolve({ error: `${why}: ${(err || out).trim().split('\n').slice(-4).join(' | ')}` });
    });
  });
}

// Cells to run: one per distinct (cell id) among the selected rows; several rows read one cell's result.
const cells = [...new Set(rows.filter((r) => r.cell).map((r) => r.cell))];
const cellSpec = (cellId) => {
  const row = ROWS.find((r) => r.cell === cellId && r.spec);
  return {
    ...row.spec,
    warmupMs: config.warmupMs,
    warmupCalls: config.warmupCalls,
    warmupMaxMs: config.warmupMaxMs,
    durationMs: config.durationMs,
    repeat: config.startupPerRep,
    agentWarmupMs: config.agentWarmupMs,
    ...(config.held && row.spec.held ? { held: config.held } : {}),
  };
};

const started = performance.now();
const samples = {}; // cellId -> impl -> [result]
const errors = [];
console.log(`agentforge bench: ${impls.join(', ')}; ${config.reps} repetition(s)${quick ? ' (quick)' : ''}`);
for (let rep = 0; rep < config.reps; rep++) {
  for (const [ci, cellId] of cells.entries()) {
    // Rotate the order per repetition and per cell so no implementation always runs first or last.
    const shift = (rep + ci) % impls.length;
    const order = [...impls.slice(shift), ...impls.slice(0, shift)];
    for (const impl of order) {
      const spec = { ...cellSpec(cellId), impl, turns: config.agentTurns };
      if (spec.implsOnly && !spec.implsOnly.includes(impl)) continue;
      if (IMPL_CELLS[impl] && !IMPL_CELLS[impl].includes(cellId)) continue;
      let result = await runCell(spec);
      // One retry: other work on the machine (a rebuild of dist/) can break a single cell.
      if (result.error) result = await runCell(spec);
      if (result.error) {
        errors.push(`${cellId} / ${impl}: ${result.error}`);
        console.log(`  ${cellId.padEnd(16)} ${impl.padEnd(10)} ERROR ${result.error.slice(0, 200)}`);
        continue;
      }
      ((samples[cellId] ??= {})[impl] ??= []).push(result);
      const brief = Object.entries(result)
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => `${k}=${v >= 100 ? Math.round(v) : v.toFixed(3)}`)
        .join(' ');
      console.log(`  [${rep + 1}/${config.reps}] ${cellId.padEnd(16)} ${impl.padEnd(10)} ${brief}`);
    }
  }
}
const elapsedS = (performance.now() - started) / 1000;

const machine = {
  cores: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  loadavg: os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
};
const summary = summarize(rows, samples, impls);
const md = renderMarkdown({ summary, impls, machine, config, quick, elapsedS, errors });
// Only a complete full run replaces RESULTS.md; a smoke run or a subset goes to RESULTS.partial.md.
if (!quick && !only && !flag('impls') && !flag('reps') && !flag('agent-warmup-ms'))
  writeFileSync(`${BENCH_DIR}RESULTS.md`, md);
else writeFileSync(`${BENCH_DIR}RESULTS.partial.md`, md);
console.log(`\n${md}`);
process.exit(errors.length ? 1 : 0);
