/** Shared wiring of the CLI commands: config -> host, flags -> model and approval. */
import { DEMO_MODEL_ID, DemoModel } from '../agent/demo-model.js';
import { type HostOptions, McpHost } from '../agent/host.js';
import { loadConfig } from '../agent/config.js';
import type { ChatModel } from '../agent/model.js';
import { createModel } from '../providers/index.js';
import type { Logger } from '../util/logger.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** How long `run` and `chat` wait for servers at startup before going on with those that are ready. */
export const AGENT_STARTUP_MS = 10_000;

export async function openHost(configPath: string | undefined, options: Omit<HostOptions, 'connector'> = {}) {
  if (!configPath) throw new UsageError('--config <mcp.json> is required');
  const config = await loadConfig(configPath);
  const host = await McpHost.start(config, {
    connectTimeoutMs: 30_000,
    retry: { maxAttempts: 2, backoffMs: 500 },
    ...options,
  });
  // One broken server does not stop the run, but the person should know why its tools are missing.
  for (const server of host.servers()) {
    if (server.state === 'failed' || server.state === 'connecting') {
      const why =
        server.state === 'failed' ? `failed (${server.error ?? 'unknown error'})` : 'is still connecting';
      process.stderr.write(`agentforge: server "${server.name}" ${why}; its tools are not available\n`);
    }
  }
  return host;
}

interface ChosenModel {
  readonly model: ChatModel;
  /** How it was chosen, for the demo's banner. */
  readonly source: 'flag' | 'env' | 'ollama' | 'demo';
}

/**
 * `--model`, else AGENTFORGE_MODEL; `demo:offline-rules` (or `demo`) picks the offline demo model. With
 * `fallback`, a local Ollama that answers within a moment is used next, and the demo model last.
 */
export async function chooseModel(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
  fallback = false,
): Promise<ChosenModel | undefined> {
  const spec = flag ?? nonEmpty(env.AGENTFORGE_MODEL);
  if (spec !== undefined) {
    if (spec === 'demo' || spec === DEMO_MODEL_ID)
      return { model: new DemoModel(), source: flag ? 'flag' : 'env' };
    return { model: createModel(spec, env), source: flag ? 'flag' : 'env' };
  }
  if (!fallback) return undefined;
  const ollama = await probeOllama(env);
  if (ollama) return { model: createModel(`ollama:${ollama}`, env), source: 'ollama' };
  return { model: new DemoModel(), source: 'demo' };
}

/** The first model a local Ollama lists, when it answers within `timeoutMs`. */
export async function probeOllama(
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 400,
): Promise<string | undefined> {
  const base = (nonEmpty(env.OLLAMA_BASE_URL) ?? 'http://127.0.0.1:11434/v1').replace(/\/v1\/?$/, '');
  try {
    const response = await fetch(`${base}/api/tags`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { models?: Array<{ name?: unknown }> };
    const name = body.models?.find((m) => typeof m.name === 'string')?.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Warnings to stderr, quiet otherwise (stdout carries the answer or the JSON transcript). */
export function stderrLogger(verbose: boolean): Logger {
  return {
    debug: (message, data) => {
      if (verbose)
        process.stderr.write(`[debug] ${message}${data === undefined ? '' : ` ${String(data)}`}\n`);
    },
    warn: (message, data) => {
      if (verbose) process.stderr.write(`[warn] ${message}${data === undefined ? '' : ` ${String(data)}`}\n`);
    },
    error: (message, data) =>
      process.stderr.write(`[error] ${message}${data === undefined ? '' : ` ${String(data)}`}\n`),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
