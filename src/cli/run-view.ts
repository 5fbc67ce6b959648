/**
 * The steps of a host and an agent run, shown through an `Activity`: each server connecting, the model
 * thinking, each tool call (waiting for approval, then running, with its progress and task status), streamed
 * answer tokens, and server logs at or above the level the user chose.
 */
import type { HostConfig } from '../agent/config.js';
import type { AgentEvent } from '../agent/events.js';
import type { HostEvent } from '../agent/host.js';
import {
  LOGGING_LEVELS,
  type LoggingLevel,
  type LoggingMessageParams,
  passesLogLevel,
} from '../mcp/types.js';
import { type Activity, formatDuration, printable } from './activity.js';

export interface RunViewOptions {
  /** Print a line per finished tool call (`run`; `chat` prints its own). */
  readonly callLines: boolean;
  /** Print a line per server that became ready (`run`; `chat` prints its banner, the listings their own). */
  readonly readyLines: boolean;
  /** Write the model's tokens as they stream in. */
  readonly streamAnswers: boolean;
  /** Server logs below this level are not shown. */
  readonly logLevel: LoggingLevel;
}

export class RunView {
  readonly #activity: Activity;
  readonly #options: RunViewOptions;
  #starting = true;
  #streamed = '';
  #lastStreamed: string | undefined;

  constructor(activity: Activity, options: RunViewOptions) {
    this.#activity = activity;
    this.#options = options;
  }

  /** A row per enabled server, before the host starts connecting them. */
  connecting(config: HostConfig): void {
    for (const server of config.servers)
      if (server.enabled) this.#activity.start(serverKey(server.name), `connecting ${server.name}`, true);
  }

  /** The host's start is over: servers still connecting join later (the caller warns about them). */
  started(config: HostConfig): void {
    this.#starting = false;
    for (const server of config.servers) this.#activity.end(serverKey(server.name));
  }

  /** True when `answer` already reached the screen as streamed tokens (so it is not printed again). */
  streamed(answer: string): boolean {
    return this.#lastStreamed !== undefined && this.#lastStreamed === answer;
  }

  readonly onHost = (event: HostEvent): void => {
    if (event.type === 'log') this.#log(event.server, event.message);
    else if (event.type === 'server_state') this.#serverState(event);
  };

  readonly onAgent = (event: AgentEvent): void => {
    const activity = this.#activity;
    switch (event.type) {
      case 'model_start':
        activity.start('think', event.step > 1 ? `thinking (step ${event.step})` : 'thinking');
        return;
      case 'text_delta':
        activity.end('think');
        if (!this.#options.streamAnswers) return;
        this.#streamed += event.text;
        activity.answer(event.text);
        return;
      case 'model_end':
        activity.end('think');
        activity.endAnswer();
        this.#lastStreamed = this.#streamed === '' ? undefined : this.#streamed;
        this.#streamed = '';
        return;
      case 'approval_request':
        activity.wait(callKey(event.request.callId), `waiting for approval: ${event.request.tool.llmName}`);
        return;
      case 'tool_start':
        activity.start(callKey(event.callId), event.llmName, true);
        return;
      case 'tool_progress':
        activity.progress(callKey(event.callId), event);
        return;
      case 'tool_task': {
        const message = event.statusMessage ? `: ${event.statusMessage}` : '';
        activity.note(callKey(event.callId), `task ${event.status}${message}`);
        return;
      }
      case 'tool_result': {
        const r = event.record;
        const good = r.status === 'ok' && !r.isError;
        const status = r.status === 'ok' ? (r.isError ? 'tool error' : 'ok') : r.status.replace('_', ' ');
        const line = `${good ? '✓' : '✗'} ${r.llmName} ${status} (${formatDuration(r.durationMs)})`;
        activity.end(callKey(r.id), this.#options.callLines ? line : undefined);
        return;
      }
      default:
        return;
    }
  };

  #serverState(event: Extract<HostEvent, { type: 'server_state' }>): void {
    const key = serverKey(event.server);
    const activity = this.#activity;
    if (event.state === 'connecting') {
      if (!activity.has(key))
        activity.start(key, `${this.#starting ? 'connecting' : 'reconnecting'} ${event.server}`, true);
    } else if (event.state === 'ready') {
      const tools = event.tools ?? 0;
      const took = activity.has(key) ? ` (${formatDuration(activity.elapsed(key))})` : '';
      // A server back after losing its connection mid-run is always reported: the user saw it fail.
      const what = this.#starting ? 'ready' : 'restarted';
      const line = `✓ ${event.server} ${what}, ${tools} tool${tools === 1 ? '' : 's'}${took}`;
      activity.end(key, this.#options.readyLines || !this.#starting ? line : undefined);
    } else if (event.state === 'failed' && !this.#starting) {
      // At start a failure is reported once, by the warning that follows the start.
      activity.end(key, `✗ ${event.server}: ${printable(event.error ?? 'connection failed')}`);
    } else {
      activity.end(key);
    }
  }

  /** client/utilities/logging: `[server] level logger: data`, levels below the chosen one hidden. */
  #log(server: string, message: LoggingMessageParams): void {
    const level = message.level;
    if (!LOGGING_LEVELS.includes(level) || !passesLogLevel(level, this.#options.logLevel)) return;
    const logger = typeof message.logger === 'string' ? ` ${printable(message.logger, 60)}` : '';
    const data = typeof message.data === 'string' ? message.data : safeJson(message.data);
    this.#activity.line(`[${server}] ${level}${logger}: ${printable(data, 1_000)}`);
  }
}

const serverKey = (name: string) => `server:${name}`;
const callKey = (id: string) => `call:${id}`;

/** A log's `data` may be anything JSON (and hostile: deep, huge); a failure shows as a placeholder. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 4_000) ?? String(value);
  } catch {
    return '[unprintable data]';
  }
}
