import type { JSONRPCMessage, JSONRPCRequest, RequestId } from './messages.js';
import type { SendOptions, Transport } from './transport.js';

/** The transport's send, a synchronous throw (a transport that serialises on the spot) turned into a rejection. */
export function sendSafely(
  transport: Transport,
  message: JSONRPCMessage,
  options: SendOptions | undefined,
): Promise<void> {
  try {
    return transport.send(message, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Fails requests whose send fails. A transport that batches (stdio: one write per tick) returns one promise for
 * the whole batch: the requests of a batch share one reaction instead of one each.
 */
export class SendWatch {
  readonly #onFailed: (ids: readonly RequestId[], error: unknown) => void;
  /** The requests handed to the transport whose send promise has not settled yet, if they share one. */
  #batch: { readonly sent: Promise<void>; readonly ids: RequestId[] } | undefined;
  /** Set while a request is being posted. */
  #posting = false;

  constructor(onFailed: (ids: readonly RequestId[], error: unknown) => void) {
    this.#onFailed = onFailed;
  }

  /**
   * Hands a request to the transport: posted when it can (no promise and no reaction per request; a failed
   * write comes back through the transport's `onpostfailed`, which calls `postFailed`), else sent with its
   * promise watched. Returns what `post` returned: the text of the params as written, if it gave one.
   */
  send(
    transport: Transport,
    message: JSONRPCRequest,
    id: RequestId,
    options: SendOptions | undefined,
  ): string | undefined {
    if (transport.post === undefined) {
      this.watch(sendSafely(transport, message, options), id);
      return undefined;
    }
    // Restored, not cleared: a post may run callbacks that post in turn.
    const outer = this.#posting;
    this.#posting = true;
    try {
      return transport.post(message, options);
    } catch (error) {
      this.watch(Promise.reject(error), id);
      return undefined;
    } finally {
      this.#posting = outer;
    }
  }

  /** Posted requests that were not written. Reported before `post` returned: failed later, as a send is. */
  postFailed(ids: readonly RequestId[], error: unknown): void {
    if (!this.#posting) {
      this.#onFailed(ids, error);
      return;
    }
    const failed = Promise.reject(error);
    for (const id of ids) this.watch(failed, id);
  }

  watch(sent: Promise<void>, id: RequestId): void {
    const batch = this.#batch;
    if (batch !== undefined && batch.sent === sent) {
      batch.ids.push(id);
      return;
    }
    const fresh = { sent, ids: [id] };
    this.#batch = fresh;
    sent.then(
      () => {
        if (this.#batch === fresh) this.#batch = undefined;
      },
      (error: unknown) => {
        if (this.#batch === fresh) this.#batch = undefined;
        this.#onFailed(fresh.ids, error);
      },
    );
  }
}
