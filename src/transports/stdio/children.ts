/**
 * Every server process group this process spawned and has not yet seen exit. When this process exits with
 * some of them still running (an uncaught error, `process.exit`, a second Ctrl-C), the 'exit' hook kills
 * those groups: a server must not outlive the process that started it. The hook can only act
 * synchronously, so it sends SIGKILL; the graceful path (stdin closed, SIGTERM, SIGKILL) is `close()`.
 */
const live = new Set<number>();
let hooked = false;

export function trackChild(pid: number): void {
  live.add(pid);
  if (hooked) return;
  hooked = true;
  process.once('exit', killLiveChildren);
}

export function untrackChild(pid: number): void {
  live.delete(pid);
}

/** The process groups still tracked (for tests and diagnostics). */
export function liveChildren(): readonly number[] {
  return [...live];
}

function killLiveChildren(): void {
  for (const pid of live) {
    try {
      if (process.platform === 'win32') process.kill(pid, 'SIGKILL');
      else process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  }
  live.clear();
}
