// The official conformance suite's server scenarios, run against one MCP endpoint: both requirement sets (2026-07-28
// and 2025-11-25) with the expected-failures baseline, every unscored scenario of each set on its own (unscored
// results do not move the suite's exit code), then the extension scenarios (tasks-*, sep-2640-skills-*) by name.
// Shared by conformance-server.mjs (the fixture itself) and conformance-gateway.mjs (the fixture behind the gateway).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const baseline = 'conformance/server-expected-failures.yml';
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const requirementSets = ['2026-07-28', '2025-11-25'];
// The suite needs Node 22 (fs.globSync); the `node` devDependency provides it. The servers run on the `node`
// found on PATH, the runtime users have.
const localNode = join(root, 'node_modules', '.bin', 'node');
const suiteNode = existsSync(localNode) ? localNode : process.execPath;

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

export async function waitForServer(url, child, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`fixture exited early with code ${child.exitCode}`);
    try {
      // Any HTTP answer means it listens (a bare GET is 405 on the MCP endpoint).
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`fixture did not listen on ${url} within ${timeoutMs} ms`);
}

function run(args) {
  const result = spawnSync(suiteNode, [cli, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** Unscored server scenarios of a set, minus the extension scenarios (run by name below). */
function unscoredServerScenarios(revision) {
  const { output } = run(['list', '--requirements', revision]);
  const unscored = output.split('Run and reported, but never scored')[1] ?? '';
  return [...unscored.matchAll(/-\s+(\S+)\s+\[server\]/g)]
    .map((m) => m[1])
    .filter((name) => !name.startsWith('tasks-') && !name.startsWith('sep-2640-'));
}

/** The extension scenarios ([extension] in `list`), server side: tasks-* and sep-2640-skills-*. */
function extensionServerScenarios() {
  const { output } = run(['list']);
  return [...output.matchAll(/-\s+(\S+)\s+\[extension\]/g)]
    .map((m) => m[1])
    .filter((name) => name.startsWith('tasks-') || name.startsWith('sep-2640-skills-'));
}

/** Runs one scenario by name and reads its checks: any FAILURE or WARNING is a failure here. */
function runScenario(url, scenario, revision) {
  const outputDir = mkdtempSync(join(tmpdir(), 'agentforge-conformance-'));
  try {
    const args = [
      'server',
      '--url',
      url,
      '--scenario',
      scenario,
      '--spec-version',
      revision,
      '--force',
      '-o',
      outputDir,
    ];
    const result = run(args);
    const checksFile = [...findChecks(outputDir)][0];
    if (!checksFile) return { ok: false, detail: 'no checks.json written', output: result.output };
    const checks = JSON.parse(readFileSync(checksFile, 'utf8'));
    const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    const passed = checks.filter((check) => check.status === 'SUCCESS').length;
    const detail = `${passed} passed, ${bad.length} failed or warned`;
    const reasons = bad.map(
      (check) => `    ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`,
    );
    return {
      ok: result.status === 0 && bad.length === 0,
      detail,
      output: reasons.join('\n') || result.output,
    };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

function* findChecks(dir) {
  const listing = spawnSync('find', [dir, '-name', 'checks.json'], { encoding: 'utf8' }).stdout ?? '';
  for (const line of listing.split('\n')) if (line.trim()) yield line.trim();
}

/**
 * Runs every server scenario against `url`; returns the unexpected failures (empty: all passed). `extensions`
 * false skips the extension scenarios.
 */
export function runServerSuite(url, { extensions = true } = {}) {
  const failures = [];
  for (const revision of requirementSets) {
    console.log(`\n=== server scenarios required by ${revision} ===`);
    const result = run(['server', '--url', url, '--requirements', revision, '--expected-failures', baseline]);
    const lines = result.output
      .split('\n')
      .filter((line) => /^[✓✗]|Total:|passed|failed|~|stale|Unexpected|Baseline/i.test(line));
    console.log(lines.slice(-60).join('\n'));
    if (result.status !== 0) failures.push(`requirements ${revision} (exit ${result.status})`);

    for (const scenario of unscoredServerScenarios(revision)) {
      const single = runScenario(url, scenario, revision);
      console.log(
        `unscored ${scenario} @ ${revision}: ${single.ok ? 'passed' : 'FAILED'} (${single.detail ?? ''})`,
      );
      if (!single.ok) {
        console.log(single.output.split('\n').slice(-30).join('\n'));
        failures.push(`${scenario} @ ${revision}`);
      }
    }
  }
  if (!extensions) return failures;
  console.log('\n=== extension scenarios (SEP-2663 tasks, SEP-2640 skills) @ 2026-07-28 ===');
  const scenarios = extensionServerScenarios();
  if (scenarios.length < 13)
    failures.push(`expected 13 extension scenarios, the suite lists ${scenarios.length}`);
  for (const scenario of scenarios) {
    const single = runScenario(url, scenario, '2026-07-28');
    console.log(`extension ${scenario}: ${single.ok ? 'passed' : 'FAILED'} (${single.detail ?? ''})`);
    if (!single.ok) {
      console.log(single.output.split('\n').slice(-30).join('\n'));
      failures.push(`${scenario} @ 2026-07-28`);
    }
  }
  return failures;
}
