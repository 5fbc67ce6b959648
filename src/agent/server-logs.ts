/**
 * Each stdio server's stderr in a file of its own, as desktop MCP hosts keep `mcp-server-<name>.log`: what a
 * server says about why it fails is never swallowed. Lines are timestamped and appended; a file past 10 MiB
 * is rolled to `<name>.log.1` when it is next opened. Files are created with mode 0600 (a server's stderr may
 * echo what it was given).
 */
import { type WriteStream, createWriteStream, mkdirSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { LoggingMessageParams } from '../mcp/types.js';

const ROLL_BYTES = 10 * 1024 * 1024;
/** Longest notifications/message kept in a log line (a hostile server may send megabytes). */
const MAX_MESSAGE_CHARS = 10_000;

/** `$XDG_STATE_HOME/agentforge/logs`, by default `~/.local/state/agentforge/logs`. */
export function defaultServerLogDir(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME?.trim() || join(homedir(), '.local', 'state');
  return join(state, 'agentforge', 'logs');
}

export interface ServerLogsOptions {
  /** Also told each line as it arrives (the CLI's `--verbose` prints them, prefixed with the server name). */
  readonly live?: (server: string, line: string) => void;
}

export class ServerLogs {
  readonly dir: string;
  readonly #live: ServerLogsOptions['live'];
  readonly #streams = new Map<string, WriteStream>();

  constructor(dir: string = defaultServerLogDir(), options: ServerLogsOptions = {}) {
    this.dir = dir;
    this.#live = options.live;
  }

  /** The file a server's stderr goes to. Names are made safe for a file name. */
  pathOf(server: string): string {
    return join(this.dir, `mcp-server-${server.replace(/[^A-Za-z0-9._-]/g, '_')}.log`);
  }

  /** Appends one stderr line of `server`. A log that cannot be written never stops the server. */
  line(server: string, text: string): void {
    this.#live?.(server, text);
    const stream = this.#stream(server);
    stream?.write(`${new Date().toISOString()} ${text}\n`);
  }

  /**
   * Appends one notifications/message of `server` (any transport) to its log, one line whatever it holds,
   * beside its stderr: `[notifications/message warning storage] disk almost full`.
   */
  message(server: string, message: LoggingMessageParams): void {
    const level = typeof message.level === 'string' ? message.level.slice(0, 20) : 'unknown';
    const logger = typeof message.logger === 'string' ? ` ${message.logger.slice(0, 100)}` : '';
    let data: string;
    try {
      data = typeof message.data === 'string' ? message.data : String(JSON.stringify(message.data));
    } catch {
      data = '[unprintable data]';
    }
    const line = data.slice(0, MAX_MESSAGE_CHARS).replace(/[\r\n]+/g, ' ');
    this.#stream(server)?.write(
      `${new Date().toISOString()} [notifications/message ${level}${logger}] ${line}\n`,
    );
  }

  async close(): Promise<void> {
    const streams = [...this.#streams.values()];
    this.#streams.clear();
    await Promise.all(streams.map((stream) => new Promise((resolve) => stream.end(resolve))));
  }

  #stream(server: string): WriteStream | undefined {
    let stream = this.#streams.get(server);
    if (stream) return stream;
    const path = this.pathOf(server);
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) > ROLL_BYTES) renameSync(path, `${path}.1`);
      stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    } catch {
      return undefined;
    }
    // A full disk or a removed directory: the lines are lost, the host goes on.
    stream.on('error', () => this.#streams.delete(server));
    this.#streams.set(server, stream);
    return stream;
  }
}
