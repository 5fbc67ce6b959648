#!/usr/bin/env node
// Runs the official conformance suite's client scenarios against dist/conformance/client-fixture.js:
// both requirement sets (2026-07-28 and 2025-11-25) with the expected-failures baseline, then every unscored
// non-auth client scenario of each set on its own, since unscored results do not move the suite's exit code;
// then the four sep-2640-client-* extension scenarios (SEP-2640 skills), pending in the suite, by name.
// Exits non-zero on any unexpected failure. Build first (`npm run build`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = 'node dist/conformance/client-fixture.js';
const baseline = 'conformance/client-expected-failures.yml';
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const requirementSets = ['2026-07-28', '2025-11-25'];
// The suite needs Node 22 (fs.globSync); the `node` devDependency provides it. The fixture it spawns runs on
// the `node` found on PATH, the runtime users have.
const localNode = join(root, 'node_modules', '.bin', 'node');
const suiteNode = existsSync(localNode) ? localNode : process.execPath;

if (!existsSync(join(root, 'dist', 'conformance', 'client-fixture.js'))) {
  console.error('dist/conformance/client-fixture.js is missing: run `npm run build` first');
  process.exit(2);
}

function run(args) {
  const result = spawnSync(suiteNode, [cli, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** Unscored client scenarios of a set, minus authorization (a later issue). */
function unscoredClientScenarios(revision) {
  const { output } = run(['list', '--requirements', revision]);
  const unscored = output.split('Run and reported, but never scored')[1] ?? '';
  return [...unscored.matchAll(/-\s+(\S+)\s+\[client\]/g)]
    .map((m) => m[1])
    .filter((name) => !name.startsWith('auth/'));
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
    '--requirements',
    revision,
    '--expected-failures',
    baseline,
  ]);
  const lines = result.output.split('\n');
  const scenarioLines = lines.filter((line) => /^[✓✗] /.test(line));
  const nonAuth = scenarioLines.filter((line) => !line.includes(' auth/'));
  const passedScenarios = scenarioLines.filter((line) => line.startsWith('✓')).length;
  console.log(nonAuth.join('\n'));
  console.log(`scenarios passed: ${passedScenarios}/${scenarioLines.length} (auth/* are the baselined rest)`);
  console.log(lines.filter((line) => /^Total:|Unexpected failures|stale/.test(line)).join('\n'));
  if (result.status !== 0) failures.push(`requirements ${revision} (exit ${result.status})`);

  for (const scenario of unscoredClientScenarios(revision)) {
    const single = run(['client', '--command', command, '--scenario', scenario, '--spec-version', revision]);
    const ok = single.status === 0 && /OVERALL: PASSED/.test(single.output);
    console.log(`unscored ${scenario} @ ${revision}: ${ok ? 'passed' : 'FAILED'} ${summary(single.output)}`);
    if (!ok) {
      console.log(single.output.split('\n').slice(-30).join('\n'));
      failures.push(`${scenario} @ ${revision}`);
    }
  }
}

console.log('\n=== extension scenarios (SEP-2640 skills) @ 2026-07-28 ===');
const listed = run(['list']).output;
const skillScenarios = [...listed.matchAll(/-\s+(sep-2640-client-\S+)\s+\[extension\]/g)].map((m) => m[1]);
if (skillScenarios.length < 4)
  failures.push(`expected 4 sep-2640-client-* scenarios, found ${skillScenarios.length}`);
for (const scenario of skillScenarios) {
  const single = run([
    'client',
    '--command',
    command,
    '--scenario',
    scenario,
    '--spec-version',
    '2026-07-28',
    // Extension scenarios are off the spec timeline: the suite skips them unless forced.
    '--force',
  ]);
  // A SKIPPED check (the client never listed) is no pass here: every check must be SUCCESS.
  const ok = single.status === 0 && /OVERALL: PASSED/.test(single.output) && !/SKIPPED/.test(single.output);
  console.log(`extension ${scenario}: ${ok ? 'passed' : 'FAILED'} ${summary(single.output)}`);
  if (!ok) {
    console.log(single.output.split('\n').slice(-30).join('\n'));
    failures.push(`${scenario} @ 2026-07-28`);
  }
}

if (failures.length > 0) {
  console.error(`\nUnexpected client conformance failures:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(
  '\nAll non-auth client scenarios passed in both requirement sets, and the skills extension ones.',
);
