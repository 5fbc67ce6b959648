// Probe: the client's young generation around a burst of held requests (space_size, physical size) and what V8
// reports of each scavenge's survivors, to see why it grows in one implementation and not another.
import v8 from 'node:v8';
import { serverCommand } from './lib/proc.mjs';
import { warmHeldPaths } from './lib/held.mjs';

const implName = process.argv[2] ?? 'agentforge';
const held = Number(process.argv[3] ?? 10000);
const impl = await import(`./clients/${implName}.mjs`);
const young = () => {
  const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  return `size ${(s.space_size / 1024) | 0} KB, physical ${(s.physical_space_size / 1024) | 0} KB, used ${(s.space_used_size / 1024) | 0} KB`;
};
const client = await impl.connectStdio(serverCommand(implName, ['--transport=stdio']));
const text = await warmHeldPaths(client);
globalThis.gc();
console.log('before', young(), 'heap', (process.memoryUsage().heapUsed / 1024) | 0);
const calls = Array.from({ length: held }, () => client.call('hold', {}));
console.log('after loop', young());
while (Number(await text('count', {})) < held);
console.log('all held', young());
globalThis.gc();
console.log('after gc', young(), 'heap', (process.memoryUsage().heapUsed / 1024) | 0);
await text('release', {});
await Promise.all(calls);
await client.close();
