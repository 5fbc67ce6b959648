// What one held tools/call keeps alive in the client process, by constructor: heap snapshots before and after
// N requests held in flight by the bench server's `hold` tool (after warm-up and a forced GC), the objects new
// in the second snapshot (by node id) grouped by type and name, divided by N. The bench harness's own share
// (the array of N promises) is in every implementation's figure, so compare differences.
//
//   node --expose-gc bench/held-retained.mjs [raw|agentforge] [N=5000] [top=20]
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { serverCommand } from './lib/proc.mjs';
import { warmHeldPaths } from './lib/held.mjs';

const implName = process.argv[2] ?? 'agentforge';
const held = Number(process.argv[3] ?? 5000);
const top = Number(process.argv[4] ?? 20);
const impl = await import(`./clients/${implName}.mjs`);
if (!globalThis.gc) throw new Error('run with --expose-gc');

function snapshot(label) {
  globalThis.gc();
  globalThis.gc();
  const file = v8.writeHeapSnapshot(join(tmpdir(), `held-${process.pid}-${label}.heapsnapshot`));
  const data = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  return data;
}

function nodesOf(data) {
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const at = (name) => fields.indexOf(name);
  const [iType, iName, iId, iSize] = [at('type'), at('name'), at('id'), at('self_size')];
  const out = [];
  for (let i = 0; i < data.nodes.length; i += width) {
    out.push({
      type: types[data.nodes[i + iType]],
      name: data.strings[data.nodes[i + iName]],
      id: data.nodes[i + iId],
      size: data.nodes[i + iSize],
    });
  }
  return out;
}

const client = await impl.connectStdio(serverCommand(implName, ['--transport=stdio']));
const text = await warmHeldPaths(client);

// The ids of the first snapshot off the heap (a Set of them would be a large array in the second snapshot).
const before = Float64Array.from(nodesOf(snapshot('a')), (node) => node.id).sort();
const seen = (id) => {
  let [low, high] = [0, before.length - 1];
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (before[mid] === id) return true;
    if (before[mid] < id) low = mid + 1;
    else high = mid - 1;
  }
  return false;
};
const calls = Array.from({ length: held }, () => client.call('hold', {}));
while (Number(await text('count', {})) < held);
const after = nodesOf(snapshot('b'));
await text('release', {});
await Promise.all(calls);
await client.close();

const groups = new Map();
let total = 0;
for (const node of after) {
  if (seen(node.id)) continue;
  // The backing store of this script's own id array, the one native object new in the second snapshot.
  if (node.type === 'native' && node.name === 'system / JSArrayBufferData' && node.size > 100_000) continue;
  const key = `${node.type} ${node.type === 'closure' || node.type === 'object' ? node.name : ''}`.trim();
  const group = groups.get(key) ?? { count: 0, bytes: 0 };
  group.count++;
  group.bytes += node.size;
  groups.set(key, group);
  total += node.size;
}
if (process.env.HELD_BIG) {
  const big = after.filter((node) => !seen(node.id) && node.size > 10_000).sort((a, b) => b.size - a.size);
  for (const node of big.slice(0, 10))
    console.log(`  big: ${node.type} ${node.name.slice(0, 60)} ${node.size} B`);
}
const rows = [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
console.log(`${implName}: ${held} held; new in the snapshot: ${(total / held).toFixed(0)} B per request`);
for (const [key, { count, bytes }] of rows) {
  const perCount = count / held;
  if (bytes / held < 4) continue;
  console.log(`  ${(bytes / held).toFixed(0).padStart(5)} B  ${perCount.toFixed(2).padStart(5)} x  ${key}`);
}
