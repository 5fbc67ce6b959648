// What one held tools/call keeps alive in the SERVER process, by constructor (bench/held-retained.mjs does the
// client): the bench server is spawned with --heapsnapshot-signal, snapshots are taken after warm-up and with
// N requests held by its `hold` tool, and the objects new in the second (by node id) are grouped by type and
// name, divided by N. The tool's own promise and resolver are in every implementation's figure.
//
//   node bench/held-retained-server.mjs [raw|agentforge] [N=5000] [top=20]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warmHeldPaths } from './lib/held.mjs';

const implName = process.argv[2] ?? 'agentforge';
const held = Number(process.argv[3] ?? 5000);
const top = Number(process.argv[4] ?? 20);
// Each server with its own kind of client: agentforge's server answers 2026-07-28 requests, raw's bare ones.
const impl = await import(`./clients/${implName === 'raw' ? 'raw' : 'agentforge'}.mjs`);
const dir = mkdtempSync(join(tmpdir(), 'held-server-'));
const server = new URL(`./servers/${implName}.mjs`, import.meta.url).pathname;
const marker = `--diagnostic-dir=${dir}`;
const client = await impl.connectStdio({
  command: process.execPath,
  args: ['--expose-gc', '--heapsnapshot-signal=SIGUSR2', marker, server, '--transport=stdio'],
});
const text = await warmHeldPaths(client);
const pid = Number(execFileSync('pgrep', ['-f', '-n', '--', marker]).toString().trim());

/** A snapshot of the server's heap (it collects garbage first); the file once the server has written it all. */
async function snapshot() {
  const before = readdirSync(dir).length;
  process.kill(pid, 'SIGUSR2');
  while (readdirSync(dir).length === before) {
    await text('count', {});
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Written on the server's main thread: a round trip after it has started returns once it is done.
  await text('count', {});
  return join(dir, readdirSync(dir).sort().at(-1));
}

function nodesOf(file) {
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const [iType, iName, iId, iSize] = ['type', 'name', 'id', 'self_size'].map((f) => fields.indexOf(f));
  const out = [];
  for (let i = 0; i < data.nodes.length; i += fields.length) {
    const type = types[data.nodes[i + iType]];
    out.push({
      type,
      name: data.strings[data.nodes[i + iName]],
      id: data.nodes[i + iId],
      size: data.nodes[i + iSize],
    });
  }
  return out;
}

try {
  const before = new Set(nodesOf(await snapshot()).map((node) => node.id));
  const calls = Array.from({ length: held }, () => client.call('hold', {}));
  while (Number(await text('count', {})) < held);
  const after = nodesOf(await snapshot());
  await text('release', {});
  await Promise.all(calls);
  const groups = new Map();
  let total = 0;
  for (const node of after) {
    if (before.has(node.id)) continue;
    const key = `${node.type} ${node.type === 'closure' || node.type === 'object' ? node.name : ''}`.trim();
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += node.size;
    groups.set(key, group);
    total += node.size;
  }
  console.log(
    `${implName} server: ${held} held; new in the snapshot: ${(total / held).toFixed(0)} B per request`,
  );
  for (const [key, { count, bytes }] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
    if (bytes / held < 4) continue;
    console.log(
      `  ${(bytes / held).toFixed(0).padStart(5)} B  ${(count / held).toFixed(2).padStart(5)} x  ${key}`,
    );
  }
} finally {
  await client.close();
  if (!process.env.KEEP_SNAPSHOTS) rmSync(dir, { recursive: true, force: true });
  else console.log(`snapshots kept in ${dir}`);
}
