// The whole deployment on one machine: a redis-server (append-only file in a temp dir), N instances of
// server.mjs and haproxy balancing them round robin. Prints the balanced MCP URL, shows requests landing on
// every instance and a notification crossing instances, then serves until Ctrl-C (or exits with --demo).
//
//   npm run build && node examples/scale-out/run-local.mjs [--instances 3] [--port 8080] [--gateways 2] [--demo]
//
// Needs redis-server and haproxy on PATH (Debian: apt-get install redis-server haproxy).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const count = Math.max(1, Number(option('instances', '3')));
const dir = mkdtempSync(join(tmpdir(), 'agentforge-scale-out-'));
const children = [];

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts a process; resolves when a line of its output matches `ready`. */
function start(label, command, args, ready, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk;
      if (ready.test(output)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => {
      onData(chunk);
      process.stderr.write(`[${label}] ${chunk}`);
    });
    child.once('exit', (code) => reject(new Error(`${label} exited (${code}): ${output}`)));
  });
}

/** Stops every child, then removes the temp dir (Redis writes its file there until it has exited). */
async function shutdown() {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(
    running.map(
      (child) =>
        new Promise((resolve) => {
          child.removeAllListeners('exit');
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
}
async function exit(code) {
  await shutdown();
  process.exit(code);
}
// Last resort (a start failed and the script is dying): no child outlives it.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});
process.on('SIGINT', () => void exit(0));
process.on('SIGTERM', () => void exit(0));

const redisPort = await freePort();
// Append-only file on, snapshots off: a restarted Redis keeps tasks and sessions.
const redisArgs = [
  '--port',
  String(redisPort),
  '--bind',
  '127.0.0.1',
  '--dir',
  dir,
  '--appendonly',
  'yes',
  '--save',
  '',
];
await start('redis', 'redis-server', redisArgs, /Ready to accept/);
const keys = JSON.stringify({
  current: { id: 'k1', secret: `local-${Math.random().toString(36).slice(2)}-key-0123` },
});
const ports = [];
for (let i = 0; i < count; i++) {
  const port = await freePort();
  ports.push(port);
  await start(`instance-${i + 1}`, process.execPath, [join(here, 'server.mjs')], /"url"/, {
    PORT: String(port),
    INSTANCE: `instance-${i + 1}`,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REQUEST_STATE_KEYS: keys,
  });
}
const balancerPort = Number(option('port', '0')) || (await freePort());
// --gateways N: N gateway instances (gateway.mjs) serving the balanced servers, behind a second frontend.
const gatewayCount = Math.max(0, Number(option('gateways', '0')));
const gatewayPorts = [];
for (let i = 0; i < gatewayCount; i++) gatewayPorts.push(await freePort());
const gatewayBalancerPort = gatewayCount > 0 ? await freePort() : 0;
const gatewayFrontend =
  gatewayCount === 0
    ? ''
    : `frontend gateway
  bind 127.0.0.1:${gatewayBalancerPort}
  default_backend gateways
backend gateways
  balance roundrobin
${gatewayPorts.map((port, i) => `  server gateway-${i + 1} 127.0.0.1:${port} check`).join('\n')}
`;
const config = join(dir, 'haproxy.cfg');
writeFileSync(
  config,
  `defaults
  mode http
  timeout connect 2s
  timeout client 1h
  timeout server 1h
frontend mcp
  bind 127.0.0.1:${balancerPort}
  default_backend instances
backend instances
  balance roundrobin
${ports.map((port, i) => `  server instance-${i + 1} 127.0.0.1:${port} check`).join('\n')}
${gatewayFrontend}`,
);
const haproxy = spawn('haproxy', ['-f', config, '-db'], { stdio: 'inherit' });
children.push(haproxy);
await new Promise((resolve) => setTimeout(resolve, 500));
const url = `http://127.0.0.1:${balancerPort}/mcp`;
console.log(`MCP endpoint behind haproxy: ${url} (${count} instances, Redis on port ${redisPort})`);
let gatewayUrl;
if (gatewayCount > 0) {
  const mcpJson = join(dir, 'mcp.json');
  writeFileSync(mcpJson, JSON.stringify({ mcpServers: { report: { url } } }));
  const gatewayKeys = JSON.stringify({
    current: { id: 'g1', secret: `gateway-${Math.random().toString(36).slice(2)}-key-0123` },
  });
  for (const [i, port] of gatewayPorts.entries()) {
    await start(`gateway-${i + 1}`, process.execPath, [join(here, 'gateway.mjs')], /"gateway"/, {
      PORT: String(port),
      MCP_CONFIG: mcpJson,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REQUEST_STATE_KEYS: gatewayKeys,
    });
  }
  // haproxy's health checks find the gateways up within a few seconds of their start.
  for (let tries = 0; tries < 100; tries++) {
    const health = await fetch(`http://127.0.0.1:${gatewayBalancerPort}/healthz`).catch(() => undefined);
    if (health?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  gatewayUrl = `http://127.0.0.1:${gatewayBalancerPort}/mcp`;
  console.log(`gateway behind haproxy: ${gatewayUrl} (${gatewayCount} instances, tools named report__*)`);
}

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const headers = (method, name) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
async function call(name, args = {}, endpoint = url) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args, _meta: meta },
  };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: headers('tools/call', name),
    body: JSON.stringify(body),
  });
  return (await response.json()).result.content[0].text;
}

const answered = [];
for (let i = 0; i < count * 2; i++) answered.push(await call('whoami'));
console.log(`whoami through the balancer: ${answered.join(', ')}`);
if (gatewayUrl) {
  const through = [];
  for (let i = 0; i < gatewayCount * 2; i++) through.push(await call('report__whoami', {}, gatewayUrl));
  console.log(`report__whoami through the balanced gateways: ${through.join(', ')}`);
}

// A listen stream on whichever instance the balancer picks; the notification comes from the next ones.
const controller = new AbortController();
const listen = await fetch(url, {
  method: 'POST',
  headers: headers('subscriptions/listen'),
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 'demo',
    method: 'subscriptions/listen',
    params: { notifications: { resourceSubscriptions: ['file:///report'] }, _meta: meta },
  }),
  signal: controller.signal,
});
const reader = listen.body.getReader();
const decoder = new TextDecoder();
let seen = '';
const heard = (async () => {
  while (!seen.includes('resources/updated')) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
  }
})();
await new Promise((resolve) => setTimeout(resolve, 200));
console.log(await call('touch', { uri: 'file:///report' }));
await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 3000))]);
console.log(
  seen.includes('resources/updated') ? 'the listen stream heard it on another instance' : 'not heard',
);
controller.abort();

if (process.argv.includes('--demo')) await exit(0);
console.log('serving; Ctrl-C stops everything');
