/**
 * Which mcp.json a command uses when `--config` is absent: the project's (`./mcp.json`, `./.mcp.json`,
 * `./.vscode/mcp.json`), then the user's agentforge config. VS Code's file keys servers as `servers`, the
 * others as `mcpServers`; src/agent/config.ts reads both.
 */
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { type ConfigInput, type HostConfig, loadConfig } from '../agent/config.js';
import { UsageError } from './errors.js';

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_CONFIG_HOME/agentforge/mcp.json`, else `~/.config/agentforge/mcp.json`. */
export function userConfigPath(env: Env = process.env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const base = xdg ? xdg : join(env.HOME?.trim() || homedir(), '.config');
  return join(base, 'agentforge', 'mcp.json');
}

/** The places searched, in order. */
export function configCandidates(cwd: string = process.cwd(), env: Env = process.env): string[] {
  return [
    resolve(cwd, 'mcp.json'),
    resolve(cwd, '.mcp.json'),
    resolve(cwd, '.vscode', 'mcp.json'),
    userConfigPath(env),
  ];
}

export async function findConfig(
  cwd: string = process.cwd(),
  env: Env = process.env,
): Promise<string | undefined> {
  for (const candidate of configCandidates(cwd, env)) {
    if (await exists(candidate)) return candidate;
  }
  return undefined;
}

/** `--config`, else the first config found; none is a usage error naming every place searched. */
export async function resolveConfigPath(flag: string | undefined): Promise<string> {
  if (flag !== undefined) return flag;
  const found = await findConfig();
  if (found) return found;
  const places = configCandidates().join(', ');
  throw new UsageError(
    `no config: pass --config <mcp.json>, or create one of ${places} ` +
      "(`agentforge init config` writes a starter, `agentforge config import` brings in Claude Desktop's and Cursor's servers)",
  );
}

/** Loads the config, asking on the terminal for VS Code `${input:...}` values when there is one. */
export async function loadHostConfig(flag: string | undefined, signal?: AbortSignal): Promise<HostConfig> {
  const path = await resolveConfigPath(flag);
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  return loadConfig(path, interactive ? { resolveInput: (input) => askInput(input, signal) } : {});
}

/** One question per input on stderr; a password's characters are not echoed. Ctrl-C interrupts it. */
export function askInput(input: ConfigInput, signal?: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // As in terminal.ts: readline in raw mode swallows Ctrl-C; the real SIGINT lets the one handler decide.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  const label = `${input.description ?? `value for \${input:${input.id}}`}: `;
  if (input.password) {
    // readline echoes through _writeToOutput; after the prompt, nothing typed is shown.
    const muted = rl as unknown as { _writeToOutput: (text: string) => void };
    let prompted = false;
    muted._writeToOutput = (text: string) => {
      if (!prompted || text.includes('\n')) process.stderr.write(prompted ? '\n' : text);
      prompted = true;
    };
  }
  return new Promise((resolveAnswer, reject) => {
    const onAbort = () => {
      rl.close();
      reject(signal?.reason);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    rl.question(label, (answer) => {
      signal?.removeEventListener('abort', onAbort);
      rl.close();
      resolveAnswer(answer);
    });
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
