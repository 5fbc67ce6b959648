import type { ClientCapabilities, InputRequests, InputResponse, JSONObject } from '../../mcp/types.js';
import { DerivedScope, type RequestScope } from '../../server/context.js';
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

export class TaskScope extends DerivedScope {
  readonly task: LiveTask;

  constructor(request: RequestScope, live: LiveTask) {
    super(request, new TaskInputBackend(request.input, live, request.clientCapabilities));
    this.task = live;
    // Before detachment the request's cancellation is the call's; after it only tasks/cancel is.
    const forward = () => {
      if (!live.detached) live.controller.abort(request.signal.reason);
    };
    if (request.signal.aborted) forward();
    else request.signal.addEventListener('abort', forward, { once: true });
  }

  override get signal(): AbortSignal {
    return this.task.controller.signal;
  }

  override notify(method: string, params: JSONObject): Promise<void> {
    if (this.task.detached) return Promise.resolve();
    return super.notify(method, params);
  }
}
