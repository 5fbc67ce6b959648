// What a burst of held tools/calls allocates, per request, on each side: client and server run with a young
// generation large enough (64 MB semi-spaces) that the burst needs no collection, so the heap's growth across it
// is every byte allocated, garbage included. The young generation grows during such a burst (the bench's
// held-request rows) when the bytes surviving its scavenges pass its size, so what a request allocates, not only
// what it keeps, moves those rows (bench/NOTES-perf.md, the eleventh round).
//
//   node --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 bench/held-allocated.mjs [impl] [N=10000]
import { warmHeldPaths } from './lib/held.mjs';
import { serverCommand } from './lib/proc.mjs';

const implName = process.argv[2] ?? 'agentforge';
const held = Number(process.argv[3] ?? 10000);
if (!globalThis.gc) throw new Error('run with --expose-gc and large semi-spaces (see the head of this file)');
const impl = await import(`./clients/${implName}.mjs`);
const command = serverCommand(implName, ['--transport=stdio']);
command.args.unshift('--min-semi-space-size=64', '--max-semi-space-size=64');
const client = await impl.connectStdio(command);
const text = await warmHeldPaths(client);
const serverHeap = async (gc) =>
  Number((await client.call('count', gc ? { gc: true } : { heap: true })).content[1].text);

await serverHeap(true);
globalThis.gc();
const client0 = process.memoryUsage().heapUsed;
const server0 = await serverHeap(false);
const calls = Array.from({ length: held }, () => client.call('hold', {}));
const client1 = process.memoryUsage().heapUsed;
while (Number(await text('count', {})) < held);
const server1 = await serverHeap(false);
const client2 = process.memoryUsage().heapUsed;
globalThis.gc();
const client3 = process.memoryUsage().heapUsed;
const server3 = await serverHeap(true);
const per = (bytes) => Math.round(bytes / held);
console.log(
  `${implName}: per request, client allocated ${per(client1 - client0)} B sending (${per(client2 - client0)} B until all were held), keeps ${per(client3 - client0)} B; server allocated ${per(server1 - server0)} B, keeps about ${per(server3 - server0)} B`,
);
await text('release', {});
await Promise.all(calls);
await client.close();
