// Process helpers: memory from /proc (Linux), spawning an HTTP server child and waiting for its port.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));

// VmHWM is the peak resident set size, VmRSS the current one (kB).
export function memKB(pid, field) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

// utime + stime of a process (all threads), in clock ticks (USER_HZ, 100 on Linux).
export const TICK_US = 10_000;
export function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU of this process's threads other than the main one (V8's compiler and GC helpers, libuv's pool), in us:
 * /proc/self/task/<tid>/schedstat's time on CPU (ns) where the kernel keeps it, else utime + stime from
 * /proc/self/task/<tid>/stat (10 ms ticks). A thread that exits inside a window takes its time with it.
 */
export function otherThreadsCpuUs() {
  let us = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    if (Number(tid) === process.pid) continue;
    try {
      us += Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
    } catch {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        us += (Number(fields[11]) + Number(fields[12])) * TICK_US;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return us;
}

export function childPids(pid = process.pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

// BENCH_SERVER_FLAGS adds node flags to server children (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);

export function serverCommand(impl, serverArgs) {
  return {
    command: process.execPath,
    args: ['--expose-gc', ...serverFlags, `${BENCH_DIR}servers/${impl}.mjs`, ...serverArgs],
  };
}

// Spawns an HTTP server child and resolves once it prints `LISTENING <port>`.
export function startHttpServer(impl, serverArgs) {
  const { command, args } = serverCommand(impl, serverArgs);
  return startListening(command, args, `${impl} server`);
}

/**
 * Spawns a process that prints `LISTENING <port>` once it serves HTTP on 127.0.0.1; resolves with its MCP URL.
 * stdin stays a pipe: the bench servers exit when it ends, so none outlives the bench.
 */
export function startListening(command, args, name = command) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/LISTENING (\d+)/);
      if (!m) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({
        child,
        url: `http://127.0.0.1:${m[1]}/mcp`,
        stop: () =>
          new Promise((r) => {
            if (child.exitCode !== null) return r();
            child.once('exit', r);
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening: ${out}`)));
  });
}
