// Scale-out cells (agentforge only): stateless tools/call through haproxy to 1 and to 2 instances, and the
// per-call cost of the Redis-backed bus, one-time requestState and task store against the in-memory ones.
// Real redis-server and haproxy processes; skipped (error row) when either is missing. The client is a plain
// keep-alive fetch, the same for both sides of each comparison, so the difference is the servers'.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR, TICK_US, cpuTicks } from './proc.mjs';

const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function start(command, args, ready) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = out.match(ready);
      if (match) resolve({ child, match });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}): ${out.slice(-300)}`)));
  });
}

async function startRedis() {
  const port = await freePort();
  const { child } = await start(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    /Ready to accept/,
  );
  return { port, pid: child.pid };
}

async function startShared(backend, redisPort) {
  const args = [
    `${BENCH_DIR}servers/agentforge-shared.mjs`,
    `--backend=${backend}`,
    `--redis-port=${redisPort}`,
  ];
  const { child, match } = await start(process.execPath, args, /LISTENING (\d+)/);
  return { url: `http://127.0.0.1:${match[1]}/mcp`, port: Number(match[1]), pid: child.pid };
}

async function startHaproxy(ports) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agentforge-bench-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  const servers = ports.map((p, i) => `  server s${i} 127.0.0.1:${p}`).join('\n');
  writeFileSync(
    config,
    `global\n  maxconn 4000\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\nfrontend f\n  bind 127.0.0.1:${port}\n  default_backend b\nbackend b\n  balance roundrobin\n${servers}\n`,
  );
  const child = spawn('haproxy', ['-f', config, '-db'], { stdio: 'ignore' });
  children.push(child);
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url, { method: 'OPTIONS' }).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  rmSync(dir, { recursive: true, force: true });
  return url;
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
};
let nextId = 1;

async function rpc(url, method, params = {}) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } });
  const response = await fetch(url, { method: 'POST', headers, body });
  const message = await response.json();
  if (!message.result) throw new Error(`${method} failed: ${JSON.stringify(message).slice(0, 300)}`);
  return message.result;
}

async function concurrent(op, concurrency, ms) {
  const start = performance.now();
  const end = start + ms;
  let n = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await op();
      n++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return n / ((performance.now() - start) / 1000);
}

/**
 * Sequential calls of each op in alternating blocks; per op the CPU time (us) the processes in its `pids`
 * spent per call: the MCP server, plus redis-server for the Redis-backed one. CPU rather than wall time: on a
 * machine shared with other work, wall time mostly measures the neighbours.
 */
async function alternateCpuUs(ops, ms) {
  const totals = ops.map(() => ({ n: 0, ticks: 0 }));
  for (let round = 0; round < 4; round++) {
    for (const [i, { op, pids }] of ops.entries()) {
      const ticks0 = pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
      const end = performance.now() + ms / 4 / ops.length;
      while (performance.now() < end) {
        await op();
        totals[i].n++;
      }
      totals[i].ticks += pids.reduce((sum, pid) => sum + cpuTicks(pid), 0) - ticks0;
    }
  }
  return totals.map((t) => (t.ticks * TICK_US) / t.n);
}

const echo = (url) => () => rpc(url, 'tools/call', { name: 'echo', arguments: {} });

export const scaleOutScenarios = {
  // Stateless tools/call at 32 in flight through haproxy: one instance behind it, then two.
  'scale-out': async (spec) => {
    const redis = await startRedis();
    const [one, two] = await Promise.all([
      startShared('redis', redis.port),
      startShared('redis', redis.port),
    ]);
    const single = await startHaproxy([one.port]);
    const pair = await startHaproxy([one.port, two.port]);
    await concurrent(echo(single), 8, spec.warmupMs);
    await concurrent(echo(pair), 8, spec.warmupMs);
    // Alternating blocks: load from elsewhere on the machine falls on both sides alike.
    const rates = [[], []];
    for (let round = 0; round < 4; round++) {
      rates[0].push(await concurrent(echo(single), spec.concurrency, spec.durationMs / 4));
      rates[1].push(await concurrent(echo(pair), spec.concurrency, spec.durationMs / 4));
    }
    const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const [rps1, rps2] = rates.map(mean);
    return { rps1, rps2, speedup: rps2 / rps1 };
  },
  // What Redis adds per call: a bus publish (notify), a one-time requestState (a greet round trip and its
  // retry), a task read (tasks/get) — each against the same server with in-memory backends.
  'redis-cost': async (spec) => {
    const store = await startRedis();
    const [memory, redis] = await Promise.all([
      startShared('memory', store.port),
      startShared('redis', store.port),
    ]);
    const taskOf = async (url) => (await rpc(url, 'tools/call', { name: 'work', arguments: {} })).taskId;
    const tasks = { [memory.url]: await taskOf(memory.url), [redis.url]: await taskOf(redis.url) };
    const notify = (url) => () => rpc(url, 'tools/call', { name: 'notify', arguments: {} });
    const taskGet = (url) => () => rpc(url, 'tasks/get', { taskId: tasks[url] });
    const mrtr = (url) => async () => {
      const first = await rpc(url, 'tools/call', { name: 'greet', arguments: {} });
      const inputResponses = { user_name: { action: 'accept', content: { name: 'Ada' } } };
      const params = { name: 'greet', arguments: {}, inputResponses, requestState: first.requestState };
      await rpc(url, 'tools/call', params);
    };
    const ops = (server, pids) =>
      [echo, notify, mrtr, taskGet].map((make) => ({ op: make(server.url), pids }));
    const all = [...ops(memory, [memory.pid]), ...ops(redis, [redis.pid, store.pid])];
    await alternateCpuUs(all, spec.warmupMs * 2);
    const us = await alternateCpuUs(all, spec.durationMs * 8);
    const [echoMem, notifyMem, mrtrMem, getMem, echoRedis, notifyRedis, mrtrRedis, getRedis] = us;
    return {
      echoExtraUs: echoRedis - echoMem,
      notifyExtraUs: notifyRedis - notifyMem,
      mrtrExtraUs: mrtrRedis - mrtrMem,
      taskGetExtraUs: getRedis - getMem,
      echoMemUs: echoMem,
      notifyMemUs: notifyMem,
      mrtrMemUs: mrtrMem,
      taskGetMemUs: getMem,
    };
  },
};
