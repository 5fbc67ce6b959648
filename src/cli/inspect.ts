/**
 * What `tools`, `resources` and `prompts` share: they connect every server, wait up to `--timeout`, and a
 * server they needed that did not connect (crashed, refused, or still hanging at connect) is a failure that
 * names it (exit 1), after whatever the usable servers had is printed.
 */
import type { McpHost } from '../agent/host.js';
import type { LoggingLevel } from '../mcp/types.js';
import { Activity, activityMode } from './activity.js';
import { loadHostConfig } from './discover.js';
import { RunView } from './run-view.js';
import { CliFailure, UsageError } from './errors.js';
import { connectTimeout, openHost, stderrLogger, unusableServers } from './setup.js';
import { didYouMean } from './suggest.js';
import { isRecord } from '../util/record.js';

export const INSPECT_OPTIONS = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean', default: false },
  timeout: { type: 'string' },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export interface InspectValues {
  readonly config?: string | undefined;
  readonly timeout?: string | undefined;
  readonly verbose?: boolean | undefined;
}

/** Shows the connecting (and `tools call`'s call) on a terminal; see run-view.ts. */
export interface InspectionDisplay {
  readonly activity: Activity;
  readonly view: RunView;
  readonly logLevel?: LoggingLevel;
}

/**
 * A display for the listings: spinners on a terminal, nothing otherwise (their output is for pipes and
 * scripts), server logs from `--log-level` (default `warning`) up.
 */
export function inspectionDisplay(logLevel?: LoggingLevel): InspectionDisplay {
  const tty = activityMode(process.stderr, false) === 'live';
  const activity = new Activity({ mode: tty ? 'live' : 'quiet', output: process.stderr });
  const view = new RunView(activity, {
    callLines: false,
    readyLines: false,
    streamAnswers: false,
    logLevel: logLevel ?? 'warning',
  });
  return { activity, view, ...(logLevel ? { logLevel } : {}) };
}

export async function openForInspection(
  values: InspectValues,
  signal: AbortSignal,
  display: InspectionDisplay = inspectionDisplay(),
): Promise<McpHost> {
  const waitMs = connectTimeout(values.timeout);
  const config = await loadHostConfig(values.config, signal);
  const print = (line: string) => display.activity.line(line);
  display.view.connecting(config);
  try {
    return await openHost(config, {
      logger: stderrLogger(values.verbose ?? false, print),
      verbose: values.verbose ?? false,
      print,
      signal,
      connectTimeoutMs: waitMs,
      startupTimeoutMs: waitMs,
      onEvent: display.view.onHost,
      ...(display.logLevel ? { logLevel: display.logLevel } : {}),
    });
  } finally {
    display.view.started(config);
  }
}

/** One line per server that did not connect; the exit code the listing ends with. */
export function reportUnusable(host: McpHost, what: string): number {
  const unusable = unusableServers(host);
  for (const server of unusable)
    process.stderr.write(
      `agentforge: server "${server.name}" ${server.reason}; its ${what} are not listed\n`,
    );
  return unusable.length > 0 ? 1 : 0;
}

/** The server a read or get goes to must exist and be connected. */
export function requireServer(host: McpHost, name: string): void {
  const names = host.config.servers.map((s) => s.name);
  if (!names.includes(name)) throw new UsageError(`no server named "${name}"${didYouMean(name, names)}`);
  const unusable = unusableServers(host).find((s) => s.name === name);
  if (unusable) throw new CliFailure(`server "${name}" ${unusable.reason}`);
  const state = host.servers().find((s) => s.name === name)?.state;
  if (state === 'disabled') throw new CliFailure(`server "${name}" is disabled in ${host.config.source}`);
}

/** `--args` as a JSON object. */
export function parseJsonObject(raw: string | undefined, flag = '--args'): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new UsageError(`${flag} must be a JSON object`);
  return value;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
