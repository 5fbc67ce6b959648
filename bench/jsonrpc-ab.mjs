// The JSON-RPC engine's client path of builds side by side in one process, no child and no syscall: each
// build's Connection over its stdio transport (StdioServerTransport on fake streams: stdout a Writable that
// takes every write at once, stdin fed the answers) sends tools/call requests and gets each answered in the
// next macrotask (setImmediate), `inflight` at a time. Builds take turns of `block` calls for `rounds` rounds;
// each turn's process CPU is charged to its build. Prints each build's median CPU per call and its median
// per-round ratio to the first. What it measures: Connection.request, the stdio writer's framing and batching,
// the reader's split and parse, the response's dispatch (the hand loop's and the agent cell's client path).
//   node --expose-gc bench/jsonrpc-ab.mjs <dir> <dir> ... [env INFLIGHT=1 BLOCK=20000 ROUNDS=20]
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ECHO_TEXT } from './lib/tools.mjs';

const INFLIGHT = Number(process.env.INFLIGHT ?? 1);
const BLOCK = Number(process.env.BLOCK ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const dirs = process.argv.slice(2);
if (dirs.length < 2) throw new Error('usage: jsonrpc-ab.mjs <dir> <dir> ...');

const answer = (id) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${ECHO_TEXT}"}]}}\n`;

async function open(dir) {
  const url = (path) => pathToFileURL(resolve(dir, path)).href;
  const { Connection } = await import(url('dist/jsonrpc/index.js'));
  const { mcpHooks } = await import(url('dist/mcp/index.js'));
  const { StdioServerTransport } = await import(url('dist/transports/stdio/index.js'));
  const stdin = new EventEmitter();
  stdin.pause = () => stdin;
  // Each written batch is answered whole in the next macrotask, as a peer's one write would be.
  const stdout = new Writable({
    write(chunk, _encoding, callback) {
      const text = chunk.toString();
      let reply = '';
      for (const match of text.matchAll(/"id":(\d+)/g)) reply += answer(match[1]);
      setImmediate(() => stdin.emit('data', Buffer.from(reply)));
      callback();
    },
  });
  const connection = new Connection(new StdioServerTransport({ stdin, stdout }), { hooks: mcpHooks });
  await connection.start();
  const params = { name: 'echo', arguments: { text: ECHO_TEXT } };
  return async (count) => {
    let left = count;
    const worker = async () => {
      while (left-- > 0) await connection.request('tools/call', params);
    };
    await Promise.all(Array.from({ length: INFLIGHT }, worker));
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runs = [];
for (const dir of dirs) runs.push(await open(dir));
for (const run of runs) await run(4 * BLOCK);
const perCall = dirs.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < runs.length; k++) {
    const i = (round + k) % runs.length;
    globalThis.gc?.();
    const start = process.cpuUsage();
    await runs[i](BLOCK);
    const cpu = process.cpuUsage(start);
    perCall[i].push((cpu.user + cpu.system) / BLOCK);
  }
}
for (let i = 0; i < dirs.length; i++) {
  const ratios = perCall[i].map((us, round) => us / perCall[0][round]);
  console.log(
    `${dirs[i].padEnd(20)} CPU per call: median ${median(perCall[i]).toFixed(3)} us ` +
      `(min ${Math.min(...perCall[i]).toFixed(3)}), vs ${dirs[0]}: median round ratio ${median(ratios).toFixed(3)}`,
  );
}
process.exit(0);
