/**
 * The scope a task-capable tools/call runs with: the request's own until the call detaches, the task's after.
 * Input goes to the request's backend (a session request, or MRTR on 2026-07-28) before and to the task's
 * `inputRequests` after; the signal is the request's until then and the task's cancellation from then on;
 * progress and log notifications stop at detachment (SEP-2663: not supported on tasks).
 */
import type { RequestId } from '../../jsonrpc/messages.js';
import type { MessageExtra } from '../../jsonrpc/transport.js';
import type { Era } from '../../mcp/revisions.js';
import type {
  ClientCapabilities,
  Implementation,
  InputRequests,
  InputResponse,
  JSONObject,
  LoggingLevel,
} from '../../mcp/types.js';
import type { RequestScope } from '../../server/context.js';
import { type InputBackend, missingCapabilityFor } from '../../server/input.js';
import type { LiveTask } from './live-task.js';

class TaskInputBackend implements InputBackend {
  readonly #requestBackend: InputBackend;
  readonly #live: LiveTask;
  readonly #capabilities: ClientCapabilities;

  constructor(requestBackend: InputBackend, live: LiveTask, capabilities: ClientCapabilities) {
    this.#requestBackend = requestBackend;
    this.#live = live;
    this.#capabilities = capabilities;
  }

  async request(requests: InputRequests, signal: AbortSignal): Promise<Record<string, InputResponse>> {
    if (!this.#live.detached) return this.#requestBackend.request(requests, signal);
    for (const input of Object.values(requests)) {
      const missing = missingCapabilityFor(input, this.#capabilities);
      if (missing)
        throw new Error(
          `the client does not support ${input.method} (capability ${Object.keys(missing)[0]})`,
        );
    }
    return this.#live.ask(requests);
  }
}

export class TaskScope implements RequestScope {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly requestId: RequestId;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly extra: MessageExtra | undefined;
  readonly meta: JSONObject | undefined;
  readonly logLevel: LoggingLevel | 'all' | undefined;
  readonly inputRound: number;
  readonly input: InputBackend;
  readonly task: LiveTask;
  readonly #request: RequestScope;

  constructor(request: RequestScope, live: LiveTask) {
    this.#request = request;
    this.era = request.era;
    this.protocolVersion = request.protocolVersion;
    this.requestId = request.requestId;
    this.clientCapabilities = request.clientCapabilities;
    this.clientInfo = request.clientInfo;
    this.extra = request.extra;
    this.meta = request.meta;
    this.logLevel = request.logLevel;
    this.inputRound = request.inputRound;
    this.task = live;
    this.input = new TaskInputBackend(request.input, live, request.clientCapabilities);
    // Before detachment the request's cancellation is the call's; after it only tasks/cancel is.
    const forward = () => {
      if (!live.detached) live.controller.abort(request.signal.reason);
    };
    if (request.signal.aborted) forward();
    else request.signal.addEventListener('abort', forward, { once: true });
  }

  get signal(): AbortSignal {
    return this.task.controller.signal;
  }

  notify(method: string, params: JSONObject): Promise<void> {
    if (this.task.detached) return Promise.resolve();
    return this.#request.notify(method, params);
  }
}
