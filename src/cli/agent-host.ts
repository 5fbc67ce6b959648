/**
 * What `run` and `chat` share when they start: the display (see activity.ts), the servers connecting in it,
 * server logs asked for at `--log-level`, and the terminal answering servers' elicitation and sampling.
 */
import type { HostConfig } from '../agent/config.js';
import type { McpHost } from '../agent/host.js';
import type { LoggingLevel } from '../mcp/types.js';
import type { Activity } from './activity.js';
import type { RunView } from './run-view.js';
import { AGENT_STARTUP_MS, openHost, stderrLogger } from './setup.js';
import type { Terminal } from './terminal.js';

export interface AgentScreen {
  readonly activity: Activity;
  readonly view: RunView;
  /** Absent when no one can answer (`run` without a terminal, or `--no-input`). */
  readonly terminal: Terminal | undefined;
}

export interface AgentHostFlags {
  readonly verbose: boolean;
  readonly logLevel: LoggingLevel | undefined;
}

/** Connects the config's servers, each shown connecting; on failure the screen is closed before rethrowing. */
export async function openAgentHost(
  config: HostConfig,
  screen: AgentScreen,
  flags: AgentHostFlags,
  signal: AbortSignal,
): Promise<McpHost> {
  const { activity, view, terminal } = screen;
  const print = (line: string) => activity.line(line);
  view.connecting(config);
  try {
    return await openHost(config, {
      // A slow server joins at a later turn instead of holding up the run (tools/list waits for all).
      startupTimeoutMs: AGENT_STARTUP_MS,
      logger: stderrLogger(flags.verbose, print),
      verbose: flags.verbose,
      print,
      signal,
      onEvent: view.onHost,
      ...(flags.logLevel ? { logLevel: flags.logLevel } : {}),
      ...(terminal
        ? {
            handlers: { elicitation: (server, params, signal) => terminal.elicit(server, params, signal) },
            offerSampling: true,
          }
        : {}),
    });
  } catch (error) {
    activity.close();
    terminal?.close();
    throw error;
  } finally {
    view.started(config);
  }
}
