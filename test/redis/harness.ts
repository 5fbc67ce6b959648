/**
 * Real processes for the scale-out tests: a redis-server on a free port (no persistence, or AOF in a temp dir),
 * server instances (test/fixtures/redis-instance.mjs, the compiled package) and haproxy balancing them round
 * robin. Every process is killed when the test file ends; none outlives the test run.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'redis-instance.mjs');
const GATEWAY_FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'redis-gateway.mjs');

function which(tool: string, fallback: string): string | undefined {
  if (existsSync(fallback)) return fallback;
  try {
    return execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const REDIS_SERVER = which('redis-server', '/usr/bin/redis-server');
export const HAPROXY = which('haproxy', '/usr/sbin/haproxy');
export const NO_REDIS =
  'redis-server is needed for the Redis scale-out tests (Debian: apt-get install redis-server; .ci/run installs it)';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** redis-server and haproxy run under this guard: it ends them when the test process goes, even by SIGKILL. */
const GUARD = join(import.meta.dirname, 'child-guard.mjs');

const children = new Set<ChildProcess>();
const dirs = new Set<string>();

/** Kills every process this harness started and removes its temp dirs. */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((child) => kill(child)));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

export function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}

/** Spawns `command` and resolves once a line of its output matches `ready` (rejects on exit or timeout). */
function startProcess(command: string, args: string[], ready: RegExp, timeoutMs = 15_000) {
  const child = spawn(command, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  });
  children.add(child);
  let output = '';
  return new Promise<{ child: ChildProcess; match: RegExpMatchArray }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} not ready: ${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${output}`));
    });
  });
}

export interface RedisProcess {
  readonly port: number;
  child: ChildProcess;
  /** Stops and starts it again on the same port (and data dir). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Starts it again after `stop`. */
  start(): Promise<void>;
}

/** A redis-server on a free port; `persistent` keeps an append-only file in a temp dir across restarts. */
export async function startRedis(options: { persistent?: boolean } = {}): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error(NO_REDIS);
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', ''];
  if (options.persistent) {
    const dir = mkdtempSync(join(tmpdir(), 'agentforge-redis-'));
    dirs.add(dir);
    args.push('--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always');
  } else {
    args.push('--appendonly', 'no');
  }
  const start = async () =>
    (await startProcess(process.execPath, [GUARD, REDIS_SERVER, ...args], /Ready to accept connections/))
      .child;
  const redis: RedisProcess = {
    port,
    child: await start(),
    async restart() {
      await kill(redis.child);
      redis.child = await start();
    },
    stop: () => kill(redis.child),
    async start() {
      redis.child = await start();
    },
  };
  return redis;
}

export interface Instance {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
}

export async function startInstance(
  name: string,
  redisPort: number,
  extra: string[] = [],
  fixture = FIXTURE,
): Promise<Instance> {
  const port = await freePort();
  const args = [
    '--expose-gc',
    fixture,
    '--name',
    name,
    '--redis-port',
    String(redisPort),
    '--port',
    String(port),
    ...extra,
  ];
  const { child, match } = await startProcess(process.execPath, args, /listening (\S+)/);
  return { name, url: match[1] as string, port, child };
}

/** haproxy in front of the instances, round robin per HTTP request; resolves to the balanced MCP URL. */
export async function startBalancer(instances: readonly Instance[]): Promise<string> {
  if (!HAPROXY) throw new Error('haproxy is needed for the balancer (apt-get install haproxy)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agentforge-haproxy-'));
  dirs.add(dir);
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 4000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  option http-server-close',
      `frontend mcp`,
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      ...instances.map((instance) => `  server ${instance.name} 127.0.0.1:${instance.port}`),
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [GUARD, HAPROXY, '-f', config, '-db'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error('haproxy exited');
    const up = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'GET' }).then(
      () => true,
      () => false,
    );
    if (up) return `http://127.0.0.1:${port}/mcp`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('haproxy did not start');
}

export interface Cluster {
  readonly redis: RedisProcess;
  readonly instances: readonly [Instance, Instance, Instance];
  /** The balanced MCP URL. */
  readonly balanced: string;
}

/** A redis-server and instances A, B and C sharing it, behind haproxy. */
export async function startCluster(options: { persistent?: boolean } = {}): Promise<Cluster> {
  const redis = await startRedis(options);
  const started = await Promise.all(['A', 'B', 'C'].map((name) => startInstance(name, redis.port)));
  const instances = started as [Instance, Instance, Instance];
  return { redis, instances, balanced: await startBalancer(instances) };
}

export interface GatewayCluster extends Cluster {
  /** The one upstream every gateway instance serves: a server instance (redis-instance.mjs) named U. */
  readonly upstream: Instance;
}

/** A gateway instance (test/fixtures/redis-gateway.mjs) serving `upstream`, its state in the Redis on `redisPort`. */
export function startGatewayInstance(name: string, redisPort: number, upstream: string): Promise<Instance> {
  return startInstance(name, redisPort, ['--upstream', upstream], GATEWAY_FIXTURE);
}

/** A redis-server, an upstream server U, and gateway instances A, B and C sharing their state, behind haproxy. */
export async function startGatewayCluster(): Promise<GatewayCluster> {
  const redis = await startRedis();
  const upstream = await startInstance('U', redis.port);
  const started = await Promise.all(
    ['A', 'B', 'C'].map((name) => startGatewayInstance(name, redis.port, upstream.url)),
  );
  const instances = started as [Instance, Instance, Instance];
  return { redis, upstream, instances, balanced: await startBalancer(instances) };
}

export interface UntilOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
  /** A probe that throws counts as not yet (while Redis restarts, calls fail); default false: it fails the wait. */
  retryOnError?: boolean;
}

/** Polls `probe` until it yields a value. */
export async function until<T>(probe: () => Promise<T | undefined>, options: UntilOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 25, retryOnError = false } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await (retryOnError ? probe().catch(() => undefined) : probe());
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
