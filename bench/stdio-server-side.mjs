// The server half of the stdio rows on its own, in this process: each implementation's stdio server path
// (reading a chunk of request lines, dispatching, serialising the answers, handing them to stdout) driven
// with the bytes agentforge's client sends, against fake streams, so no pipe, no peer and no scheduler sits
// in the figure. `node bench/stdio-server-side.mjs <impl,impl,...> [inflight] [rounds] [turn]`:
// - impl: `raw` (bench/lib/lines.mjs and bench/servers/raw-handler.mjs, as the raw bench server), `raw-own`
//   (the same fed the raw client's smaller requests, without `_meta`: the row's raw pair), or
//   `<label>=<dist dir>` for an agentforge build (McpServer.serveStdio as bench/servers/agentforge.mjs), e.g.
//   `raw,before=/tmp/base/dist,after=dist`; `agentforge` alone is `agentforge=dist`;
// - inflight: requests per chunk (64: the 64-in-flight row, each chunk one batch of answers; 1: sequential);
// - the implementations take turns of `turn` calls for `rounds` rounds (order reversed every other round)
//   after a warm-up, so a machine whose load drifts weighs on all alike.
// Prints `RESULT {"impl","inflight","cpuUs","wallUs","bytesOut"}` per implementation: medians over rounds of
// this process's CPU (user + system, GC threads included) and wall time per call, and bytes written per answer.
import { EventEmitter } from 'node:events';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lineWriter, onLines } from './lib/lines.mjs';
import { median, sideArgs, takeTurns } from './lib/sides.mjs';
import { ECHO_TEXT, echoSchema, textResult } from './lib/tools.mjs';
import { createRawHandler, respond } from './servers/raw-handler.mjs';

const { specs, inflight, rounds, turn } = sideArgs({ impls: 'raw,agentforge', rounds: 30, turn: 6400 });
const WARMUP_CALLS = 20_000;

// What agentforge's client sends for a 2026-07-28 tools/call (captured from bench/clients/agentforge.mjs).
const META =
  '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}';
const requestLine = (id, meta) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${ECHO_TEXT}"}${meta ? `,"_meta":${META}` : ''}}}\n`;
/** One chunk of `inflight` requests (ids 1..inflight: every answer is out before the chunk comes again). */
const chunkOf = (meta) =>
  Buffer.from(Array.from({ length: inflight }, (_, i) => requestLine(i + 1, meta)).join(''));

/** A stdin that hands each chunk straight to its listeners, and a stdout that counts what it is given. */
function fakeStreams(chunk = chunkOf(true)) {
  const stdin = new EventEmitter();
  stdin.pause = () => stdin;
  const stdout = new EventEmitter();
  stdout.destroyed = false;
  stdout.writableEnded = false;
  stdout.answers = 0;
  stdout.bytes = 0;
  stdout.last = '';
  stdout.waiting = undefined;
  stdout.write = (text) => {
    stdout.bytes += text.length;
    stdout.last = text;
    let at = text.indexOf('\n');
    while (at !== -1) {
      stdout.answers++;
      at = text.indexOf('\n', at + 1);
    }
    if (stdout.waiting && stdout.answers >= stdout.waiting.until) {
      const { resolve } = stdout.waiting;
      stdout.waiting = undefined;
      resolve();
    }
    return true;
  };
  /** Pushes one chunk and resolves once every answer to it was written. */
  const exchange = () =>
    new Promise((resolve) => {
      stdout.waiting = { until: stdout.answers + inflight, resolve };
      stdin.emit('data', chunk);
    });
  return { stdin, stdout, exchange };
}

async function rawSide(own) {
  const { stdin, stdout, exchange } = fakeStreams(chunkOf(!own));
  const handle = createRawHandler({ tools: 0, minimal: true });
  const send = lineWriter(stdout);
  // The raw bench server reads a utf8-decoded stream: the decode is its cost too.
  const decoded = new EventEmitter();
  stdin.on('data', (bytes) => decoded.emit('data', bytes.toString('utf8')));
  onLines(decoded, (msg) => {
    if (msg.id === undefined) return;
    const result = handle(msg);
    if (result instanceof Promise) result.then((r) => send(respond(msg, r)));
    else send(respond(msg, result));
  });
  return { stdout, exchange };
}

async function agentforgeSide(dist) {
  const { stdin, stdout, exchange } = fakeStreams();
  const url = pathToFileURL(resolvePath(dist, 'server/index.js')).href;
  const { McpServer } = await import(url);
  const server = new McpServer({ name: 'bench-agentforge', version: '0.1.0' });
  server.registerTool('echo', { description: 'Echo the text back', inputSchema: echoSchema }, ({ text }) =>
    textResult(text),
  );
  await server.serveStdio({ stdin, stdout });
  return { stdout, exchange };
}

async function side(spec) {
  const [label, dist] = spec.includes('=') ? spec.split('=') : [spec, spec.startsWith('raw') ? '' : 'dist'];
  const made =
    label.startsWith('raw') && !dist ? await rawSide(label === 'raw-own') : await agentforgeSide(dist);
  await made.exchange();
  if (!made.stdout.last.includes(ECHO_TEXT))
    throw new Error(`${label}: unexpected answer ${made.stdout.last}`);
  return { label, ...made };
}

async function runTurn(impl, calls) {
  for (let done = 0; done < calls; done += inflight) await impl.exchange();
}

const impls = [];
for (const spec of specs) impls.push(await side(spec));
await takeTurns(impls, { rounds, turn, warmup: WARMUP_CALLS, runTurn });
for (const impl of impls) {
  const result = {
    impl: impl.label,
    inflight,
    cpuUs: Number(median(impl.cpu).toFixed(3)),
    wallUs: Number(median(impl.wall).toFixed(3)),
    bytesOut: impl.stdout.bytes / impl.stdout.answers,
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
}
