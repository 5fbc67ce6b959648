// The HTTP server side counted per call, in figures that do not depend on the machine's load:
//   node --expose-gc bench/http-server-counts.mjs <modern|legacy> [impl ...]
// Each implementation's server runs in this process (raw: the node:http JSON-RPC server of bench/servers/raw.mjs;
// agentforge: McpServer + createNodeHandler from ../dist; `name=<dir>`: agentforge from another build's dist
// directory, e.g. `agentforge before=/tmp/base/dist` to compare two builds), driven over one
// keep-alive socket by callback-only code (no promises of its own) that sends the bytes agentforge's client
// sends: a 2026-07-28 tools/call, or one inside a 2025-11-25 session. Prints per call:
// - promises created (an async_hooks PROMISE init counter; the hook turns off V8's await shortcut, so real
//   counts are lower, but the order holds), nextTicks queued, timers made;
// - bytes allocated (the sampling heap profiler, collected objects included, 256 B interval);
// - CPU per call with no hook attached (driver included, the same for every server), the implementations taking
//   turns of TURN calls (default 500) for ROUNDS rounds (default 30): the median turn of each. Compare within
//   one run only.
// CALLS (default 5000) sets the measured calls of the counting phases.
import http from 'node:http';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { bytesAllocated, countAsync } from './lib/counting.mjs';
import { createRawHandler, createRawHttpServer } from './servers/raw-handler.mjs';
import { ECHO_TEXT, echoSchema, textResult } from './lib/tools.mjs';

const [mode = 'modern', ...implArgs] = process.argv.slice(2);
const impls = implArgs.length > 0 ? implArgs : ['raw', 'agentforge'];
const CALLS = Number(process.env.CALLS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const TURN = Number(process.env.TURN ?? 500);
const DIST = process.env.DIST ?? new URL('../dist/', import.meta.url).pathname;
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};

function rawServer() {
  return createRawHttpServer(createRawHandler({ tools: 0, minimal: true }));
}

async function agentforgeServer(dist) {
  const { McpServer, createNodeHandler } = await import(pathToFileURL(`${dist}/server/index.js`).href);
  const server = new McpServer({ name: 'bench-agentforge', version: '0.1.0' });
  server.registerTool('echo', { description: 'Echo the text back', inputSchema: echoSchema }, ({ text }) =>
    textResult(text),
  );
  return http.createServer(createNodeHandler(server));
}

/** A keep-alive socket; `exchange(text, done)` writes a request and calls back with the response. */
function socketTo(port, ready) {
  const socket = net.connect(port, '127.0.0.1', () => ready(exchange));
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  let waiting;
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1 || !waiting) return;
    const head = buffered.subarray(0, end).toString('latin1');
    const chunked = /transfer-encoding: chunked/i.test(head);
    const last = chunked ? buffered.indexOf('0\r\n\r\n', end + 4) : -1;
    if (chunked && last === -1) return;
    const length = chunked ? last + 5 - (end + 4) : Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < end + 4 + length) return;
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    const done = waiting;
    waiting = undefined;
    done(head, body);
  });
  function exchange(text, done) {
    waiting = done;
    socket.write(text);
  }
  return socket;
}

function post(port, headers, body) {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join('')}content-length: ${Buffer.byteLength(body)}\r\nhost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n${body}`;
}

/** Sets up the session (legacy) and returns `run(count, done)`, which makes `count` calls one after another. */
function driver(port, exchange, ready) {
  const base = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  let id = 1;
  const start = (headers, params) => {
    const run = (count, done) => {
      let left = count;
      const next = (_head, body) => {
        if (!body.includes(ECHO_TEXT)) throw new Error(`unexpected answer: ${body}`);
        if (--left === 0) return done();
        send();
      };
      const send = () =>
        exchange(
          post(port, headers, JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params })),
          next,
        );
      send();
    };
    ready(run);
  };
  const params = { name: 'echo', arguments: { text: ECHO_TEXT } };
  if (mode === 'modern') {
    const headers = {
      ...base,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    };
    return start(headers, { ...params, _meta: META });
  }
  const init = {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  };
  const initBody = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init });
  exchange(post(port, base, initBody), (head) => {
    const session = /mcp-session-id: (\S+)/i.exec(head)?.[1];
    const headers = {
      ...base,
      'mcp-protocol-version': '2025-11-25',
      ...(session ? { 'mcp-session-id': session } : {}),
    };
    const initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
    exchange(post(port, headers, initialized), () => start(headers, params));
  });
}

const calls = (run, count) => new Promise((resolve) => run(count, resolve));

async function counted(run) {
  const counts = await countAsync(() => calls(run, CALLS), ['PROMISE', 'TickObject', 'Timeout']);
  return {
    promises: counts.PROMISE / CALLS,
    ticks: counts.TickObject / CALLS,
    timers: counts.Timeout / CALLS,
  };
}

async function bytesPerCall(run) {
  return (await bytesAllocated(() => calls(run, CALLS))) / CALLS;
}

/** Turns of TURN calls, every implementation in each round (order reversed every other round). */
async function interleavedCpu(sides) {
  const perCall = new Map(sides.map((one) => [one, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const one of round % 2 ? [...sides].reverse() : sides) {
      const start = process.cpuUsage();
      await calls(one.run, TURN);
      const cpu = process.cpuUsage(start);
      perCall.get(one).push((cpu.user + cpu.system) / TURN);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return sides.map((one) => ({ impl: one.impl, cpuUs: median(perCall.get(one)) }));
}

const sides = [];
for (const spec of impls) {
  // `name=dir`: agentforge from another build's dist directory.
  const [impl, dist = DIST] = spec.split('=');
  const server = impl === 'raw' ? rawServer() : await agentforgeServer(dist);
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const { socket, run } = await new Promise((resolve) => {
    const s = socketTo(port, (exchange) => driver(port, exchange, (go) => resolve({ socket: s, run: go })));
  });
  await calls(run, 3000);
  const { promises, ticks, timers } = await counted(run);
  const bytes = await bytesPerCall(run);
  console.log(
    `${mode} ${impl.padEnd(12)} promises ${promises.toFixed(1)}  nextTicks ${ticks.toFixed(1)}  timers ${timers.toFixed(2)}  ` +
      `bytes ${(bytes / 1024).toFixed(2)} KB  (per call, driver included)`,
  );
  sides.push({ impl, run, socket, server });
}
globalThis.gc?.();
for (const { impl, cpuUs } of await interleavedCpu(sides))
  console.log(
    `${mode} ${impl.padEnd(12)} cpu ${cpuUs.toFixed(1)} us per call (driver included; median of ${ROUNDS} turns)`,
  );
for (const { socket, server } of sides) {
  socket.destroy();
  await new Promise((resolve) => server.close(resolve));
}
