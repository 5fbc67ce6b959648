/** Drives the built `agentforge` binary (dist/cli/main.js, built by the global setup) as a user would. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../agent/support.js';

export const MAIN = join(ROOT, 'dist/cli/main.js');

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  readonly input?: string;
  readonly timeoutMs?: number;
}

/** The environment without the caller's model settings, so no test reaches a real provider. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && !/^(AGENTFORGE_|OPENAI_|ANTHROPIC_|GEMINI_|OLLAMA_)/.test(k),
    ),
  ) as Record<string, string>;
  return { ...clean, ...extra };
}

export function cli(args: readonly string[], options: CliOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { env: cleanEnv(options.env), cwd: options.cwd ?? ROOT, timeout: options.timeoutMs ?? 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** No stack trace: no `    at ` frame lines, no `Error:` dumps. */
export function expectNoStack(stderr: string): void {
  if (/^\s+at .+:\d+:\d+\)?$/m.test(stderr)) throw new Error(`stack trace on stderr:\n${stderr}`);
}
