// Runs a server the tests need (redis-server, haproxy) and ends it when the test process goes, however it goes:
// its stdin is a pipe from the test process, which the kernel closes when that process dies (a SIGKILL of the
// vitest worker included, which runs no exit handler). Neither server watches its stdin itself.
//   node child-guard.mjs <command> [args...]
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
let ending = false;

function end(signal) {
  if (ending) return;
  ending = true;
  child.kill(signal);
  setTimeout(() => child.kill('SIGKILL'), 3000).unref();
}

child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.once('error', (error) => {
  process.stderr.write(`${command}: ${error.message}\n`);
  process.exit(127);
});
process.stdin.on('end', () => end('SIGTERM'));
process.stdin.resume();
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => end(signal));
