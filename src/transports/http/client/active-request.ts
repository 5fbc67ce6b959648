import type { ClientRequest } from 'node:http';
import type { LocalError } from '../../../mcp/local-errors.js';

/**
 * One POST in flight. Cancelling destroys its HTTP request directly: no AbortController (and no abort
 * listener inside node:http) per request; a signal exists only if a resumed stream needs one.
 */
export class ActiveRequest {
  request: ClientRequest | undefined;
  aborted = false;
  #controller: AbortController | undefined;

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  abort(reason: LocalError): void {
    if (this.aborted) return;
    this.aborted = true;
    // The same error node:http raises for an aborted signal, so openRequest reports a cancellation.
    const error = new Error(reason.message, { cause: reason });
    error.name = 'AbortError';
    this.request?.destroy(error);
    this.#controller?.abort(reason);
  }
}
