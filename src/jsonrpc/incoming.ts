import type { Connection, Params, RequestContext, RequestMap, RequestOptions } from './connection.js';
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
export class IncomingContext<Outgoing extends RequestMap = RequestMap> implements RequestContext<Outgoing> {
  readonly notify: RequestContext['notify'];
  readonly request: RequestContext<Outgoing>['request'];
  readonly #incoming: Incoming;

  constructor(
    connection: Connection<Outgoing>,
    readonly id: RequestId,
    readonly method: string,
    incoming: Incoming,
    readonly extra: MessageExtra | undefined,
  ) {
    this.#incoming = incoming;
    this.notify = (notifyMethod, params) => connection.notify(notifyMethod, params, { relatedRequestId: id });
    // The untyped view of the same connection: the map's types were checked where `request` is called.
    const untyped = connection as unknown as Connection;
    this.request = ((requestMethod: string, params?: Params, options?: RequestOptions) =>
      untyped.request(requestMethod, params, {
        ...options,
        relatedRequestId: id,
      })) as RequestContext<Outgoing>['request'];
  }

  // Created on first use: most handlers never look at their signal.
  get signal(): AbortSignal {
    const incoming = this.#incoming;
    incoming.controller ??= new AbortController();
    if (incoming.cancelled && !incoming.controller.signal.aborted) incoming.controller.abort();
    return incoming.controller.signal;
  }
}
