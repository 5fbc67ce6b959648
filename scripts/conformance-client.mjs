#!/usr/bin/env node
// Runs the official conformance suite's client scenarios against build/conformance/client-fixture.js:
// both requirement sets (2026-07-28 and 2025-11-25) with the expected-failures baseline, then every unscored
// client scenario of each set on its own (the auth extensions among them), since unscored results do not move
// the suite's exit code, then the 2025-03-26 authorization back-compat scenarios at their own revision, then
// the four sep-2640-client-* extension scenarios (SEP-2640 skills), pending in the suite, by name.
// Exits non-zero on any unexpected failure. Build first (`npm run build`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = 'node build/conformance/client-fixture.js';
const baseline = 'conformance/client-expected-failures.yml';
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const requirementSets = ['2026-07-28', '2025-11-25'];
// Per-scenario limit: the suite's default (30 s) is tight when a requirement set runs its scenarios in
// parallel on a loaded 2-core machine (each authorization scenario spawns several servers and our client).
const timeout = ['--timeout', '90000'];
// The suite needs Node 22 (fs.globSync); the `node` devDependency provides it. The fixture it spawns runs on
// the `node` found on PATH, the runtime users have.
const localNode = join(root, 'node_modules', '.bin', 'node');
const suiteNode = existsSync(localNode) ? localNode : process.execPath;

if (!existsSync(join(root, 'build', 'conformance', 'client-fixture.js'))) {
  console.error('build/conformance/client-fixture.js is missing: run `npm run build` first');
  process.exit(2);
}

function run(args) {
  const result = spawnSync(suiteNode, [cli, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** Unscored client scenarios of a set. */
function unscoredClientScenarios(revision) {
  const { output } = run(['list', '--requirements', revision]);
  const unscored = output.split('Run and reported, but never scored')[1] ?? '';
  return [...unscored.matchAll(/-\s+(\S+)\s+\[client\]/g)].map((m) => m[1]);
}

/** Client scenarios the suite lists for a revision no requirement set covers (2025-03-26 back-compat). */
const backcompat = {
  revision: '2025-03-26',
  scenarios: ['auth/2025-03-26-oauth-metadata-backcompat', 'auth/2025-03-26-oauth-endpoint-fallback'],
};

function runSingle(scenario, revision, { skippedFails = false } = {}) {
  // --force: extension scenarios are on no revision's timeline; they run at this one's wire.
  const single = run([
    'client',
    '--command',
    command,
    ...timeout,
    '--scenario',
    scenario,
    '--spec-version',
    revision,
    '--force',
  ]);
  const ok =
    single.status === 0 &&
    /OVERALL: PASSED/.test(single.output) &&
    !(skippedFails && /SKIPPED/.test(single.output));
  console.log(`${scenario} @ ${revision}: ${ok ? 'passed' : 'FAILED'} ${summary(single.output)}`);
  if (!ok) {
    console.log(single.output.split('\n').slice(-30).join('\n'));
    failures.push(`${scenario} @ ${revision}`);
  }
}

function summary(output) {
  const passed = [...output.matchAll(/Passed:\s*(\d+)\/(\d+)/g)];
  return passed.at(-1)?.[0] ?? output.match(/(\d+)\/(\d+) scenarios? passed[^\n]*/)?.[0] ?? '';
}

const failures = [];
for (const revision of requirementSets) {
  console.log(`\n=== client scenarios required by ${revision} ===`);
  const result = run([
    'client',
    '--command',
    command,
    ...timeout,
    '--requirements',
    revision,
    '--expected-failures',
    baseline,
  ]);
  const lines = result.output.split('\n');
  const scenarioLines = lines.filter((line) => /^[✓✗] /.test(line));
  const passedScenarios = scenarioLines.filter((line) => line.startsWith('✓')).length;
  console.log(scenarioLines.join('\n'));
  console.log(`scenarios passed: ${passedScenarios}/${scenarioLines.length}`);
  console.log(lines.filter((line) => /^Total:|Unexpected failures|stale/.test(line)).join('\n'));
  if (result.status !== 0) failures.push(`requirements ${revision} (exit ${result.status})`);

  for (const scenario of unscoredClientScenarios(revision)) runSingle(scenario, revision);
}

console.log(`\n=== back-compat client scenarios at ${backcompat.revision} ===`);
for (const scenario of backcompat.scenarios) runSingle(scenario, backcompat.revision);

console.log('\n=== extension scenarios (SEP-2640 skills) @ 2026-07-28 ===');
const listed = run(['list']).output;
const skillScenarios = [...listed.matchAll(/-\s+(sep-2640-client-\S+)\s+\[extension\]/g)].map((m) => m[1]);
if (skillScenarios.length < 4)
  failures.push(`expected 4 sep-2640-client-* scenarios, found ${skillScenarios.length}`);
// A SKIPPED check (the client never listed) is no pass here: every check must be SUCCESS.
for (const scenario of skillScenarios) runSingle(scenario, '2026-07-28', { skippedFails: true });

if (failures.length > 0) {
  console.error(`\nUnexpected client conformance failures:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(
  '\nAll client scenarios passed: both requirement sets, the unscored ones, the 2025-03-26 back-compat and the skills extension ones.',
);
