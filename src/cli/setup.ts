/** Shared wiring of the CLI commands: config -> host, flags -> model and approval. */
import { ServerLogs, defaultServerLogDir } from '../agent/server-logs.js';
import { DEMO_MODEL_ID, DemoModel } from '../agent/demo-model.js';
import { parseApprovalPolicy } from '../agent/approval.js';
import { GlobSet } from '../agent/glob.js';
import type { HostConfig } from '../agent/config.js';
import { clientConnector } from '../agent/connect.js';
import { type HostOptions, McpHost } from '../agent/host.js';
import type { ChatModel } from '../agent/model.js';
import { LOGGING_LEVELS, type LoggingLevel } from '../mcp/types.js';
import { createModel } from '../providers/index.js';
import type { Logger } from '../util/logger.js';
import { loadHostConfig } from './discover.js';
import { CliFailure, UsageError, oneLine } from './errors.js';
import { didYouMean } from './suggest.js';
import { telemetryConnector } from './telemetry.js';

export { UsageError } from './errors.js';

/** How long `run` and `chat` wait for servers at startup before going on with those that are ready. */
export const AGENT_STARTUP_MS = 10_000;

/** How long `tools`, `resources` and `prompts` wait for a server to connect (`--timeout` overrides it). */
export const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Loads the config (`--config`, else discovered; or one already loaded, so its `${input:...}` questions come
 * before anything else reads the terminal) and connects its servers.
 */
export async function openHost(
  source: string | undefined | HostConfig,
  options: Omit<HostOptions, 'connector'> & {
    readonly verbose?: boolean;
    /** Where `--verbose` shows server stderr (through the display, so it never draws over it). */
    readonly print?: (line: string) => void;
  } = {},
) {
  const config = typeof source === 'object' ? source : await loadHostConfig(source, options.signal);
  const { verbose, print, onEvent, ...hostOptions } = options;
  const serverLogs = cliServerLogs(verbose === true, process.env, print);
  const traced = telemetryConnector();
  return McpHost.start(config, {
    ...(traced ? { connector: clientConnector(traced) } : {}),
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    retry: { maxAttempts: 2, backoffMs: 500 },
    serverLogs,
    ...hostOptions,
    // Every server log message is kept in the server's log file, whatever the display shows of it.
    onEvent: (event) => {
      if (event.type === 'log') serverLogs.message(event.server, event.message);
      onEvent?.(event);
    },
  });
}

/**
 * Every stdio server's stderr, and every server's notifications/message, goes to its own log file
 * (AGENTFORGE_LOG_DIR, else the user's state dir); `--verbose` also shows the stderr live, each line prefixed
 * with the server's name.
 */
export function cliServerLogs(
  verbose: boolean,
  env: NodeJS.ProcessEnv = process.env,
  print: (line: string) => void = printStderr,
): ServerLogs {
  const dir = env.AGENTFORGE_LOG_DIR?.trim() || defaultServerLogDir(env);
  return new ServerLogs(dir, verbose ? { live: (server, line) => print(`[${server}] ${line}`) } : {});
}

function printStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * `--log-level`: an RFC 5424 severity name, as MCP logging uses (client/utilities/logging). Undefined when
 * absent: no level is asked of servers, and what they send anyway is shown from `warning` up.
 */
export function parseLogLevel(raw: string | undefined): LoggingLevel | undefined {
  if (raw === undefined) return undefined;
  const level = raw.trim().toLowerCase();
  if ((LOGGING_LEVELS as readonly string[]).includes(level)) return level as LoggingLevel;
  throw new UsageError(
    `--log-level must be one of ${LOGGING_LEVELS.join(', ')}${didYouMean(level, LOGGING_LEVELS)}`,
  );
}

export interface Unusable {
  readonly name: string;
  /** `failed to connect (server process ... exited with code 5; stderr: boom)` */
  readonly reason: string;
}

/** Enabled servers that are not ready: crashed, refused, or still connecting when the wait ended. */
export function unusableServers(host: McpHost): Unusable[] {
  return host.servers().flatMap((server) => {
    if (server.state === 'ready' || server.state === 'disabled') return [];
    const log = server.logFile ? `; its stderr is in ${server.logFile}` : '';
    const reason =
      server.state === 'connecting'
        ? `did not connect in time (it hangs at connect)${log}`
        : `failed to connect (${oneLine(withoutCommand(server.error ?? 'unknown error'))})${log}`;
    return [{ name: server.name, reason }];
  });
}

/** "server process /usr/bin/node exited with code 9": the server's name already says which process. */
function withoutCommand(error: string): string {
  return error.replace(/^server process .+? (exited with code|was killed by) /, '$1 ');
}

/**
 * `run` and `chat` go on with the servers that are usable, after one warning line per server that is not;
 * with none usable at all there is nothing to run on.
 */
export function requireSomeServer(host: McpHost): void {
  const unusable = unusableServers(host);
  for (const server of unusable)
    process.stderr.write(
      `agentforge: warning: server "${server.name}" ${server.reason}; its tools are not available\n`,
    );
  const enabled = host.servers().filter((s) => s.state !== 'disabled');
  if (enabled.length > 0 && unusable.length === enabled.length)
    throw new CliFailure(
      `no server is usable (${unusable.map((s) => `"${s.name}"`).join(', ')} did not connect)`,
    );
}

/** `--timeout <seconds>` as milliseconds. */
export function connectTimeout(raw: string | undefined): number {
  if (raw === undefined) return CONNECT_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!(seconds > 0) || seconds > 3600)
    throw new UsageError('--timeout must be a number of seconds, 0 < s <= 3600');
  return Math.round(seconds * 1000);
}

/**
 * `--approve` globs and `--group` names that match nothing are almost always typos: a warning names them
 * (with the nearest real name), as the run itself would silently ask or see no tools.
 */
export function warnUnmatched(
  host: McpHost,
  approve: string | undefined,
  groups: readonly string[] = [],
): void {
  const names = host.registry.entries().map((t) => t.llmName);
  const policy = parseApprovalPolicy(approve);
  if (typeof policy === 'object') {
    for (const glob of policy.tools) {
      if (new GlobSet([glob]).empty || names.some((name) => new GlobSet([glob]).matches(name))) continue;
      process.stderr.write(
        `agentforge: warning: --approve "${glob}" matches no tool${didYouMean(glob, names)}\n`,
      );
    }
  }
  const known = new Set(host.config.servers.flatMap((s) => s.groups));
  for (const group of groups) {
    if (known.has(group)) continue;
    const has = known.size > 0 ? ` (groups: ${[...known].join(', ')})` : ' (no server has a group)';
    process.stderr.write(
      `agentforge: warning: --group "${group}" matches no server${didYouMean(group, known)}${has}\n`,
    );
  }
}

/** `run` and `chat` without a model: how to get one, and the model that needs nothing. */
export const NO_MODEL_MESSAGE =
  'no model: pass --model <provider>:<model> or set AGENTFORGE_MODEL (e.g. openai:gpt-4o with ' +
  'OPENAI_API_KEY, anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY, ollama:llama3.1 for a local Ollama); ' +
  'to try it offline with no key, use --model demo:offline-rules';

export interface ChosenModel {
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

/** Warnings to stderr (or the display), quiet otherwise (stdout carries the answer or the JSON transcript). */
export function stderrLogger(verbose: boolean, print: (line: string) => void = printStderr): Logger {
  const line = (level: string, message: string, data: unknown) =>
    print(`[${level}] ${message}${data === undefined ? '' : ` ${String(data)}`}`);
  return {
    debug: (message, data) => {
      if (verbose) line('debug', message, data);
    },
    warn: (message, data) => {
      if (verbose) line('warn', message, data);
    },
    error: (message, data) => line('error', message, data),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
