// The agent cell's loop in user-space instructions per turn, a count that does not move with the machine's load:
// `node bench/agent-instructions.mjs <raw|mcp|agent> [checkout dir] [warm-up runs] [measured runs]` runs the loop
// (bench/lib/agent-variants.mjs: 3 raw stdio servers, the zero-latency model, 10 turns per run) under valgrind's
// callgrind (Debian's `valgrind` package), warms it up uninstrumented, then counts the instructions of the host's
// main thread over the measured runs (callgrind_control turns counting on and off around them; the servers are
// not run under valgrind). The CPU time of a turn is about half the kernel's (the writes that wake the servers),
// equal for every variant, and its remainder swings by 5-10% between processes; instructions repeat within 0.2%
// from one run to the next, so a change of a few hundred instructions a turn can be read. The profile stays in
// $TMPDIR/agent-instructions.<variant>.* (JIT code named by /tmp/perf-<pid>.map, written by --perf-basic-prof).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [variant = 'agent', dir = resolve(import.meta.dirname, '..'), warm = '1500', measured = '300'] =
  process.argv.slice(2);

if (process.env.AGENT_INSTRUCTIONS_CHILD) {
  const { openLoop, TURNS_PER_RUN } = await import(
    pathToFileURL(join(resolve(dir), 'bench/lib/agent-variants.mjs')).href
  );
  const loop = await openLoop(variant);
  const runs = async (count) => {
    for (let i = 0; i < count; i++) {
      const result = await loop.run('go');
      if (result.answer !== 'done') throw new Error(`run ended: ${JSON.stringify(result)}`);
    }
  };
  await runs(Number(warm));
  execFileSync('callgrind_control', ['-i', 'on', String(process.pid)], { stdio: 'ignore' });
  await runs(Number(measured));
  execFileSync('callgrind_control', ['-d', String(process.pid)], { stdio: 'ignore' });
  execFileSync('callgrind_control', ['-i', 'off', String(process.pid)], { stdio: 'ignore' });
  await loop.close();
  process.stdout.write(`TURNS ${Number(measured) * TURNS_PER_RUN}\n`);
  process.exit(0);
}

const out = join(tmpdir(), `agent-instructions.${variant}`);
const ownFiles = () =>
  readdirSync(tmpdir())
    .filter((name) => name.startsWith(`agent-instructions.${variant}`))
    .map((name) => join(tmpdir(), name));
for (const file of ownFiles()) rmSync(file);
const child = spawnSync(
  'valgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    process.execPath,
    '--perf-basic-prof',
    import.meta.filename,
    ...process.argv.slice(2),
  ],
  { env: { ...process.env, AGENT_INSTRUCTIONS_CHILD: '1' }, encoding: 'utf8' },
);
if (child.error) throw new Error(`valgrind: ${child.error.message} (install Debian's valgrind package)`);
const turns = Number(/TURNS (\d+)/.exec(child.stdout)?.[1]);
// The main thread's dump: the first thread's file of the dump callgrind_control asked for.
const main = ownFiles().find((file) => /\.\d+-01$/.test(file));
if (!turns || !main) throw new Error(`no measurement:\n${child.stderr.slice(-2000)}`);
const totals = Number(/^totals: (\d+)/m.exec(readFileSync(main, 'utf8'))?.[1]);
console.log(`${variant}: ${Math.round(totals / turns)} instructions per turn (main thread, ${turns} turns)`);
