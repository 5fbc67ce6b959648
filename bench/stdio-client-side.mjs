// The client half of the stdio rows on its own, in this process: each implementation's client (the bench
// clients' path: a tools/call sent, its answer read, parsed and handed back) against a fake peer that answers
// each written line in the next macrotask with fixed bytes, so no pipe, no server and no scheduler sits in
// the figure. The peer's own work (counting lines, joining answer text) is the same for every implementation.
// `node bench/stdio-client-side.mjs <impl,impl,...> [inflight] [rounds] [turn]`:
// - impl: `raw` (bench/clients/raw.mjs's stdio path: bench/lib/lines.mjs framing, a Map of pending requests)
//   fed the raw server's answers; `raw-wire` the same client sending and reading the bytes of a 2026-07-28
//   exchange (each request's `_meta` in its params, each answer's `resultType` and serverInfo `_meta`), both
//   serialised and parsed whole; or `<label>=<dist dir>` for an agentforge build's McpClient (its stdio framing
//   over the fake peer), e.g. `raw,raw-wire,main=/work/main/dist,lead=dist`;
// - inflight: calls in flight (64: the 64-in-flight row; 1: sequential);
// - the implementations take turns of `turn` calls for `rounds` rounds (order reversed every other round).
// With SITES=<n> set, each implementation instead runs one turn under V8's sampling heap profiler (objects the
// GCs collected included) and prints its bytes per call and its top n allocating functions (self bytes per call).
// Prints `RESULT {"impl","inflight","cpuUs","bytesOut","bytesIn"}`: the median over rounds of this process's
// CPU (user + system, GC threads included) per call, and the bytes of one request and of one answer.
import { EventEmitter } from 'node:events';
import { Session } from 'node:inspector/promises';
import { resolve as resolvePath } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { rawStdioClient } from './clients/raw.mjs';
import { META as REQUEST_META } from './clients/raw-wire.mjs';
import { median, sideArgs, takeTurns } from './lib/sides.mjs';
import { ECHO_TEXT } from './lib/tools.mjs';

const { specs, inflight, rounds, turn } = sideArgs({
  impls: 'raw,raw-wire,agentforge',
  rounds: 20,
  turn: 12800,
});
const WARMUP_CALLS = 30_000;

// What the bench server returns in every result (captured from bench/servers/agentforge.mjs); the request's
// `_meta` is raw-wire's, the same as agentforge's client sends.
const RESULT_TAIL =
  '"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-agentforge","version":"0.1.0"}}';
const DISCOVER_RESULT =
  '{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{"listChanged":true}},"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-agentforge","version":"0.1.0"}}}';
const content = `{"content":[{"type":"text","text":"${ECHO_TEXT}"}]`;

/**
 * A peer on fake streams: every line written to `stdout` is answered, in order, from the next macrotask, as
 * one chunk per write (a peer's one write per batch). Requests are numbered as the clients number them (from
 * 1, one id per line), so the answer needs no parse: `answerOf(id)` is its text.
 */
function fakePeer(answerOf) {
  const stdin = new EventEmitter();
  stdin.pause = () => stdin;
  stdin.setEncoding = () => stdin;
  stdin.resume = () => stdin;
  const stdout = new EventEmitter();
  stdout.destroyed = false;
  stdout.writableEnded = false;
  let nextId = 1;
  const peer = { stdin, stdout, bytesOut: 0, bytesIn: 0, lines: 0, decode: false };
  stdout.write = (text) => {
    let reply = '';
    let at = text.indexOf('\n');
    while (at !== -1) {
      reply += answerOf(nextId++);
      peer.lines++;
      at = text.indexOf('\n', at + 1);
    }
    peer.bytesOut += text.length;
    peer.bytesIn += reply.length;
    setImmediate(() => stdin.emit('data', peer.decode ? reply : Buffer.from(reply)));
    return true;
  };
  return peer;
}

/**
 * bench/clients/raw.mjs's stdio client on the fake peer. Its child's stdout is utf8-decoded (setEncoding): the
 * stream's StringDecoder turns each chunk of bytes into a string before `onLines` sees it, so here too (with
 * `DECODE=0`, the peer hands raw strings it made, as this bench did before: no decode on raw's side at all).
 */
function rawClient(wire) {
  const answer = wire
    ? (id) => `{"jsonrpc":"2.0","id":${id},"result":${content},${RESULT_TAIL}}}\n`
    : (id) => `{"jsonrpc":"2.0","id":${id},"result":${content}}}\n`;
  const peer = fakePeer(answer);
  let stdout = peer.stdin;
  if (process.env.DECODE === '0') peer.decode = true;
  else {
    const decoder = new StringDecoder('utf8');
    stdout = new EventEmitter();
    peer.stdin.on('data', (bytes) => stdout.emit('data', decoder.write(bytes)));
  }
  const { call } = rawStdioClient(peer.stdout, stdout, wire ? REQUEST_META : undefined);
  return { peer, call };
}

async function agentforgeClient(dist) {
  const answer = (id) =>
    id === 1
      ? `{"jsonrpc":"2.0","id":1,"result":${DISCOVER_RESULT}}\n`
      : `{"jsonrpc":"2.0","id":${id},"result":${content},${RESULT_TAIL}}}\n`;
  const peer = fakePeer(answer);
  const url = (path) => pathToFileURL(resolvePath(dist, path)).href;
  const { McpClient } = await import(url('client/index.js'));
  const { StdioServerTransport } = await import(url('transports/stdio/index.js'));
  // The stdio framing of the build, reading the peer's stdout and writing its stdin.
  const transport = new StdioServerTransport({ stdin: peer.stdin, stdout: peer.stdout });
  const client = await McpClient.connect(transport, { clientInfo: { name: 'bench', version: '1.0.0' } });
  return { peer, call: (name, args) => client.callTool({ name, arguments: args }) };
}

async function side(spec) {
  const [label, dist] = spec.includes('=') ? spec.split('=') : [spec, spec.startsWith('raw') ? '' : 'dist'];
  const made =
    label.startsWith('raw') && !dist ? rawClient(label === 'raw-wire') : await agentforgeClient(dist);
  const result = await made.call('echo', { text: ECHO_TEXT });
  if (result.content[0].text !== ECHO_TEXT) throw new Error(`${label}: unexpected answer`);
  return { label, ...made };
}

/** `calls` calls, `inflight` callers each calling again as soon as its call is answered. */
async function runTurn(impl, calls) {
  let left = calls;
  const caller = async () => {
    while (left > 0) {
      left--;
      await impl.call('echo', { text: ECHO_TEXT });
    }
  };
  await Promise.all(Array.from({ length: inflight }, caller));
}

/** Bytes allocated per call during one turn, in all and by allocating function (file:line). */
async function allocationSites(impl, calls) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 128,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await runTurn(impl, calls);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const sites = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const top = [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.SITES));
  console.log(`${impl.label}: ${Math.round(total / calls)} bytes per call`);
  for (const [site, bytes] of top) console.log(`  ${String(Math.round(bytes / calls)).padStart(6)}  ${site}`);
}

const impls = [];
for (const spec of specs) impls.push(await side(spec));
if (process.env.SITES) {
  for (const impl of impls) await runTurn(impl, WARMUP_CALLS);
  for (const impl of impls) await allocationSites(impl, turn * rounds);
  process.exit(0);
}
await takeTurns(impls, { rounds, turn, warmup: WARMUP_CALLS, runTurn });
for (const impl of impls) {
  const { peer } = impl;
  const result = {
    impl: impl.label,
    inflight,
    cpuUs: Number(median(impl.cpu).toFixed(3)),
    bytesOut: Math.round(peer.bytesOut / peer.lines),
    bytesIn: Math.round(peer.bytesIn / peer.lines),
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
}
