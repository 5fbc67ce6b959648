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
// Prints `RESULT {"impl","inflight","cpuUs","bytesOut","bytesIn"}`: the median over rounds of this process's
// CPU (user + system, GC threads included) per call, and the bytes of one request and of one answer.
import { EventEmitter } from 'node:events';
import { resolve as resolvePath } from 'node:path';
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

/** bench/clients/raw.mjs's stdio client on the fake peer (its child's stdout is utf8-decoded: so is this). */
function rawClient(wire) {
  const answer = wire
    ? (id) => `{"jsonrpc":"2.0","id":${id},"result":${content},${RESULT_TAIL}}}\n`
    : (id) => `{"jsonrpc":"2.0","id":${id},"result":${content}}}\n`;
  const peer = fakePeer(answer);
  peer.decode = true;
  const { call } = rawStdioClient(peer.stdout, peer.stdin, wire ? REQUEST_META : undefined);
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

const impls = [];
for (const spec of specs) impls.push(await side(spec));
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
