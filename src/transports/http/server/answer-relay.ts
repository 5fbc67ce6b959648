/**
 * A handshake-era client's answers to server-initiated requests (elicitation, sampling, roots: 2025-11-25
 * basic/transports, Sending Messages to the Server) across instances. The request goes out on a stream of the
 * instance whose handler asked; the client POSTs its answer to the session, which the balancer may send to any
 * instance. Requests sent from a shared session's copy therefore carry an id naming this instance
 * (`<tag>.<original id as JSON>`); an answer reaching another copy is relayed to `<session>/<tag>`, which only
 * this instance's copy receives, and delivered under its original id. Two copies of one session never
 * mistake each other's answers, though each numbers its requests from the same start.
 */
import type { JSONRPCResponse, RequestId } from '../../../jsonrpc/messages.js';
import type { MessageExtra } from '../../../jsonrpc/transport.js';
import type { Logger } from '../../../util/logger.js';
import { isRecord } from '../../../util/record.js';
import type { SessionRelay } from './session-store.js';

/** Largest relayed answer read back (a sampling result may be large; nothing bigger is an agentforge relay). */
const MAX_ANSWER = 16 * 1024 * 1024;

export class AnswerRelay {
  readonly #relay: SessionRelay;
  readonly #sessionId: string;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #deliver: (message: JSONRPCResponse, extra: MessageExtra) => void;
  /** The principal of the session (its answers come from no one else). */
  principal: string | undefined;
  #listening: Promise<(() => void) | undefined> | undefined;
  #closed = false;

  constructor(
    relay: SessionRelay,
    sessionId: string,
    tag: string,
    logger: Logger,
    deliver: (message: JSONRPCResponse, extra: MessageExtra) => void,
  ) {
    this.#relay = relay;
    this.#sessionId = sessionId;
    this.#prefix = `${tag}.`;
    this.#logger = logger;
    this.#deliver = deliver;
  }

  /** The id a request sent from here carries on the wire; resolves once answers relayed here are heard. */
  async outgoing(id: RequestId): Promise<string> {
    this.#listening ??= this.#relay
      .receive(this.#channel(this.#prefix), (text) => this.#received(text))
      .catch((error: unknown) => {
        this.#logger.warn(`session ${this.#sessionId}: answers from other instances will not arrive`, error);
        return undefined;
      });
    const stop = await this.#listening;
    if (this.#closed) stop?.();
    return `${this.#prefix}${JSON.stringify(id)}`;
  }

  /**
   * An answer the client POSTed here: the response under its original id when a request of this copy asked,
   * undefined when it was relayed to the copy that asked (or is no answer of a shared copy at all).
   */
  incoming(message: JSONRPCResponse, principal: string | undefined): JSONRPCResponse | undefined {
    const id = message.id;
    if (typeof id !== 'string') return message;
    if (id.startsWith(this.#prefix)) return restored(message, id.slice(this.#prefix.length)) ?? message;
    const dot = id.indexOf('.');
    if (dot <= 0 || dot > 64) return message;
    const envelope = JSON.stringify({ principal: principal ?? null, message });
    this.#relay
      .relay(this.#channel(id.slice(0, dot + 1)), envelope)
      .then((heard) => {
        if (!heard) this.#logger.debug(`session ${this.#sessionId}: no instance awaits the answer ${id}`);
      })
      .catch((error: unknown) => this.#logger.warn(`session ${this.#sessionId}: answer not relayed`, error));
    return undefined;
  }

  close(): void {
    this.#closed = true;
    void this.#listening?.then((stop) => stop?.());
  }

  #received(text: string): void {
    if (this.#closed || text.length > MAX_ANSWER) return;
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      return;
    }
    // Session Hijacking: an answer from anyone but the session's principal is dropped.
    if (!isRecord(envelope) || envelope.principal !== (this.principal ?? null)) return;
    const message = envelope.message;
    if (!isRecord(message) || typeof message.id !== 'string' || !message.id.startsWith(this.#prefix)) return;
    if (!('result' in message) && !('error' in message)) return;
    const answer = restored(message as unknown as JSONRPCResponse, message.id.slice(this.#prefix.length));
    if (answer) this.#deliver(answer, { sessionId: this.#sessionId });
  }

  #channel(prefix: string): string {
    return `${this.#sessionId}/${prefix.slice(0, -1)}`;
  }
}

/** The response under the id this copy gave the connection (the JSON after the tag). */
function restored(message: JSONRPCResponse, original: string): JSONRPCResponse | undefined {
  let id: unknown;
  try {
    id = JSON.parse(original);
  } catch {
    return undefined;
  }
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return { ...message, id } as JSONRPCResponse;
}
