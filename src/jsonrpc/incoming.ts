import type { Connection, RequestContext } from './connection.js';
import type { RequestId } from './messages.js';
import type { MessageExtra } from './transport.js';

/** The bookkeeping of one request being served: its abort controller, made on first use. */
export interface Incoming {
  controller: AbortController | undefined;
  cancelled: boolean;
}

/**
 * The context of one incoming request. A class, not an object literal: on Node 20 a literal with a getter costs
 * about a microsecond to create. `notify` and `request` are own arrow functions so handlers may destructure them.
 */
export class IncomingContext implements RequestContext {
  readonly notify: RequestContext['notify'];
  readonly request: RequestContext['request'];
  readonly #incoming: Incoming;

  constructor(
    connection: Connection,
    readonly id: RequestId,
    readonly method: string,
    incoming: Incoming,
    readonly extra: MessageExtra | undefined,
  ) {
    this.#incoming = incoming;
    this.notify = (notifyMethod, params) => connection.notify(notifyMethod, params, { relatedRequestId: id });
    this.request = (requestMethod, params, options) =>
      connection.request(requestMethod, params, { ...options, relatedRequestId: id });
  }

  // Created on first use: most handlers never look at their signal.
  get signal(): AbortSignal {
    const incoming = this.#incoming;
    incoming.controller ??= new AbortController();
    if (incoming.cancelled && !incoming.controller.signal.aborted) incoming.controller.abort();
    return incoming.controller.signal;
  }
}
