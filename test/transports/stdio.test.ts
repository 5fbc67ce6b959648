import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, type LocalError } from '../../src/jsonrpc/index.js';
import { mcpHooks } from '../../src/mcp/index.js';
import { StdioClientTransport, type StdioServerParameters } from '../../src/transports/stdio/index.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const peer = (...flags: string[]): StdioServerParameters => ({
  command: process.execPath,
  args: [join(fixtures, 'stdio-peer.mjs'), ...flags],
});

/** Running (a zombie awaiting its reaper counts as gone: in a container PID 1 may never reap it). */
function alive(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false;
  }
}

/** Live processes whose command line mentions our fixture (the process table, not our own bookkeeping). */
function fixtureProcesses(): number {
  const out = execFileSync('ps', ['-eo', 'pid,stat,args'], { encoding: 'utf8' });
  // The full path: other suites run in parallel with fixtures whose names end the same way.
  const script = join(fixtures, 'stdio-peer.mjs');
  return out.split('\n').filter((line) => line.includes(script) && !/\sZ/.test(line)).length;
}

async function connect(
  params: StdioServerParameters,
  options: ConstructorParameters<typeof StdioClientTransport>[1] = {},
) {
  const transport = new StdioClientTransport(params, options);
  const connection = new Connection(transport, { hooks: mcpHooks });
  await connection.start();
  return { transport, connection };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('stdio client transport with real child processes', () => {
  it('round-trips a request', async () => {
    const { connection } = await connect(peer());
    cleanups.push(() => connection.close());
    await expect(connection.request('echo', { hello: 'wörld' })).resolves.toEqual({
      echo: { hello: 'wörld' },
    });
  });

  it('gives the child a minimal environment, never the parent secrets', async () => {
    process.env.AGENTFORGE_TEST_SECRET_KEY = 'sk-should-not-leak';
    try {
      const { connection } = await connect({ ...peer(), env: { CONFIGURED: 'yes' } });
      cleanups.push(() => connection.close());
      const { env } = (await connection.request('env')) as { env: Record<string, string> };
      expect(env.AGENTFORGE_TEST_SECRET_KEY).toBeUndefined();
      expect(env.CONFIGURED).toBe('yes');
      expect(env.PATH).toBe(process.env.PATH);
      const allowed = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'CONFIGURED']);
      expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
    } finally {
      delete process.env.AGENTFORGE_TEST_SECRET_KEY;
    }
  });

  it('SIGKILL of the child mid-request rejects promptly with the exit reason and stderr tail', async () => {
    const { transport, connection } = await connect(peer());
    cleanups.push(() => connection.close());
    await connection.request('echo');
    const call = connection.request('slow', { ms: 30_000 });
    await new Promise((r) => setTimeout(r, 20));
    const killedAt = Date.now();
    process.kill(transport.pid!, 'SIGKILL');
    const error = (await call.catch((e: unknown) => e)) as LocalError;
    expect(Date.now() - killedAt).toBeLessThan(1000);
    expect(error.code).toBe('connection_closed');
    expect(error.message).toContain('SIGKILL');
    expect(error.message).toContain('peer ready');
  });

  it('an unexpected exit names the exit code', async () => {
    const { connection } = await connect(peer());
    cleanups.push(() => connection.close());
    const slow = connection.request('slow', { ms: 30_000 });
    void connection.request('die').catch(() => {});
    const error = (await slow.catch((e: unknown) => e)) as LocalError;
    expect(error.message).toMatch(/exited with code 3/);
    expect(error.message).toContain('fatal: simulated crash');
  });

  it('skips a non-JSON line with a warning and keeps the connection', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, error() {}, warn: (m: string) => warnings.push(m) };
    const { connection } = await connect(peer(), { logger });
    cleanups.push(() => connection.close());
    await expect(connection.request('garbage')).resolves.toEqual({ after: 'garbage' });
    expect(warnings.join('\n')).toContain('this is not json');
    await expect(connection.request('echo', { still: 'alive' })).resolves.toEqual({
      echo: { still: 'alive' },
    });
  });

  it('drops a response for an unknown id and keeps going', async () => {
    const { connection } = await connect(peer());
    cleanups.push(() => connection.close());
    await expect(connection.request('unknown-id')).resolves.toEqual({ ok: true });
  });

  it('a line over the cap without a newline closes the transport with a clear error, not OOM', async () => {
    const { connection } = await connect(peer(), { maxLineBytes: 64 * 1024 });
    cleanups.push(() => connection.close());
    const error = (await connection
      .request('huge', { bytes: 1024 * 1024 })
      .catch((e: unknown) => e)) as LocalError;
    expect(error.code).toBe('connection_closed');
    expect(error.message).toMatch(/exceeded 65536 bytes/);
  });

  it('reports a command that cannot start', async () => {
    const transport = new StdioClientTransport({ command: '/nonexistent/mcp-server' });
    await expect(transport.start()).rejects.toMatchObject({ code: 'transport_error' });
  });

  it('a child that ignores stdin EOF and SIGTERM is gone within ~4 s', async () => {
    const { transport, connection } = await connect(peer('--stubborn'));
    const pid = transport.pid!;
    await connection.request('echo');
    const started = Date.now();
    await connection.close();
    const took = Date.now() - started;
    expect(alive(pid)).toBe(false);
    expect(took).toBeGreaterThanOrEqual(3900);
    expect(took).toBeLessThan(5500);
  }, 15_000);

  it('kills the process group so npx-style grandchildren die too', async () => {
    const stderr: string[] = [];
    const { connection } = await connect(peer('--grandchild'), { onstderr: (line) => stderr.push(line) });
    await connection.request('echo');
    const grandchild = Number(stderr.find((l) => l.startsWith('grandchild'))?.split(' ')[1]);
    expect(alive(grandchild)).toBe(true);
    await connection.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(grandchild)).toBe(false);
  });

  it('100 connect/close cycles leave no child process behind', async () => {
    const before = fixtureProcesses();
    for (let i = 0; i < 100; i++) {
      const { connection } = await connect(peer());
      if (i % 10 === 0) await connection.request('echo', { i });
      await connection.close();
    }
    expect(fixtureProcesses()).toBe(before);
  }, 120_000);
});

describe('stdio server transport (agentforge on both ends)', () => {
  it('serves requests, keeps stdout for protocol only, and exits on stdin EOF', async () => {
    const stderr: string[] = [];
    const { transport, connection } = await connect(
      { command: process.execPath, args: [join(fixtures, 'stdio-lib-server.mjs')] },
      { onstderr: (line) => stderr.push(line) },
    );
    await expect(connection.request('echo', { n: 1 })).resolves.toEqual({ echo: { n: 1 } });
    await expect(connection.request('log-to-stderr')).resolves.toEqual({});
    const pid = transport.pid!;
    const started = Date.now();
    await connection.close();
    // Exited by itself on EOF, well before the SIGTERM step at 2 s.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(alive(pid)).toBe(false);
    expect(stderr).toContain('a log line on stderr');
  });

  it('exits on its own, without spinning, when its stdout reader goes away (EPIPE)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(fixtures, 'stdio-lib-server.mjs')], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout.once('data', () => {
      child.stdout.destroy();
      // The server learns of it on its next write (EPIPE): answers written before the reader left raise nothing,
      // and the server writes what is sent in one tick as one batch.
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 200, method: 'echo' })}\n`);
    });
    for (let i = 0; i < 200; i++)
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'echo' })}\n`);
    const outcome = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r('still running'), 3000)),
    ]);
    child.kill('SIGKILL');
    expect(outcome).toBe(0); // a clean exit, not a crash on an unhandled EPIPE and not a spin
  });
});
