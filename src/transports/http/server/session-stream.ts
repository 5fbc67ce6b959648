import type { JSONRPCResponse, RequestId } from '../../../jsonrpc/messages.js';
import { stringifyMessage } from '../../../jsonrpc/serialise.js';
import type { HttpExchange, SseSink, StreamControl } from './exchange.js';
import { SSE_KEEPALIVE, sseMessage, ssePriming } from './wire.js';

export interface StreamSettings {
  readonly maxEvents: number;
  readonly retryMs: number;
  readonly keepAliveMs: number;
  /** 2025-11-25 clients get a priming event (id + empty data); older ones may choke on empty data. */
  readonly priming: boolean;
  /** Headers added to the response that opens the stream (Mcp-Session-Id). */
  readonly headers: Record<string, string>;
  /** Records each event beyond this process (an EventStore), for resumption on another instance. */
  readonly persist?: ((key: string, seq: number, json: string) => void) | undefined;
  /** Ends the connection of the session's GET stream (a request's `extra.closeStandaloneSSEStream`). */
  readonly closeStandalone?: (() => void) | undefined;
}

/** Runs before the first byte of a POST's answer (the response when it goes as JSON, else undefined). */
export type FirstWriteHook = (response: JSONRPCResponse | undefined, stream: SessionStream) => void;

interface StoredEvent {
  readonly seq: number;
  readonly text: string;
}

/**
 * One logical SSE stream of a handshake-era session (2025-03-26..2025-11-25 basic/transports): the stream of a
 * POST carrying requests, or the session's GET stream. Events get ids `<stream>_<seq>` (unique within the session
 * and naming their stream, so Last-Event-ID finds it); the last `maxEvents` are kept for replay. The HTTP
 * connection carrying the stream may come and go (client network loss, or the server closing it for polling,
 * SEP-1699) while the stream itself lives on until its responses are out.
 */
export class SessionStream implements StreamControl {
  readonly key: string;
  #seq = 0;
  #deliveredSeq = 0;
  /** Made on the first event: a POST answered with JSON (the usual case) stores none. */
  #events: StoredEvent[] | undefined;
  #sink: SseSink | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  /** The POST still waiting for its answer; answered with JSON if the response comes before anything else. */
  #pending: HttpExchange | undefined;
  /** The one request a POST carries, when it is not a batch (no Set for the usual case). */
  #awaitingOne: RequestId | undefined;
  /** A batch's requests still unanswered. */
  readonly #awaiting: Set<RequestId> | undefined;
  /** A batch's responses held for its one JSON answer. */
  readonly #batchResponses: JSONRPCResponse[] | undefined;
  /** Set once every response this stream owes is out (or stored for replay). */
  complete = false;
  /** Called before the first byte of the POST's answer: the initialize hook decides the session header there. */
  beforeFirstWrite: FirstWriteHook | undefined;
  readonly #settings: StreamSettings;

  constructor(
    key: string,
    settings: StreamSettings,
    pending: HttpExchange | undefined,
    requestIds: readonly RequestId[],
    batch: boolean,
  ) {
    this.#settings = settings;
    this.key = key;
    this.#pending = pending;
    if (batch) {
      this.#awaiting = new Set(requestIds);
      this.#batchResponses = [];
    } else {
      this.#awaitingOne = requestIds[0];
    }
  }

  /** The headers of the response that opens the stream (the initialize hook may drop the session id). */
  get headers(): Record<string, string> {
    return this.#settings.headers;
  }

  get connected(): boolean {
    return this.#sink !== undefined && !this.#sink.closed;
  }

  /** True when the stream still holds events the client has not received. */
  get hasUndelivered(): boolean {
    return this.#deliveredSeq < this.#seq;
  }

  /** Sends a response (settling one awaited id) or a notification/request related to the stream's requests. */
  sendResponse(response: JSONRPCResponse, id: RequestId): void {
    const batch = this.#batchResponses;
    if (batch === undefined) {
      if (this.#awaitingOne !== id || id === undefined) return;
      this.#awaitingOne = undefined;
      // JSON answer: the response came before anything else had to be streamed.
      if (this.#pending && !this.#sink) this.#answerJson(stringifyMessage(response), response);
      else {
        this.#emit(stringifyMessage(response));
        this.#finish();
      }
      return;
    }
    const awaiting = this.#awaiting as Set<RequestId>;
    if (!awaiting.delete(id)) return;
    const last = awaiting.size === 0;
    if (this.#pending && !this.#sink) {
      batch.push(response);
      if (last) this.#answerJson(`[${batch.map(stringifyMessage).join(',')}]`, batch[0]);
      return;
    }
    for (const earlier of batch.splice(0)) this.#emit(stringifyMessage(earlier));
    this.#emit(stringifyMessage(response));
    if (last) this.#finish();
  }

  sendMessage(json: string): void {
    this.#ensureStreaming();
    this.#emit(json);
  }

  /**
   * SEP-1699: closes the HTTP connection without ending the stream; the client reconnects (GET + Last-Event-ID)
   * after `retry` ms and receives what was sent meanwhile.
   */
  closeConnection(): void {
    this.#ensureStreaming();
    this.#detach(true);
  }

  /** A request's `extra.closeSSEStream`: this stream's connection. */
  closeSSEStream(): void {
    this.closeConnection();
  }

  /** A request's `extra.closeStandaloneSSEStream`: the session's GET stream's connection. */
  closeStandaloneSSEStream(): void {
    this.#settings.closeStandalone?.();
  }

  /** Re-attaches a reconnecting client: replays events after `afterSeq`, then streams live (or ends if done). */
  resume(exchange: HttpExchange, afterSeq: number): void {
    this.#detach(true);
    this.#attach(exchange, false);
    for (const event of this.#events ?? []) if (event.seq > afterSeq) this.#sink?.write(event.text);
    this.#deliveredSeq = this.#seq;
    if (this.complete) this.#detach(true);
  }

  /** A fresh GET for the standalone stream: delivers what was queued while nobody listened, then streams. */
  open(exchange: HttpExchange, replayed?: readonly string[]): void {
    // Resuming the session's stream of another instance (`replayed`: its events, framed with their own ids):
    // that stream is what the client follows, and what this copy queued meanwhile was the same broadcast
    // notifications, so the local backlog is not sent again.
    // The replayed events go before the priming event, so the client's next Last-Event-ID names this stream.
    const delivered = replayed ? this.#seq : this.#deliveredSeq;
    this.#attach(exchange, true, replayed);
    for (const event of this.#events ?? []) if (event.seq > delivered) this.#sink?.write(event.text);
    this.#deliveredSeq = this.#seq;
  }

  /** Ends the stream for good (session closed). */
  close(): void {
    this.complete = true;
    if (this.#pending) {
      this.#pending.respond(404, undefined);
      this.#pending = undefined;
    }
    this.#detach(true);
  }

  #answerJson(text: string, first: JSONRPCResponse | undefined): void {
    const exchange = this.#pending as HttpExchange;
    this.#pending = undefined;
    this.beforeFirstWrite?.(first, this);
    exchange.respond(200, this.#settings.headers, text);
    this.complete = true;
  }

  #ensureStreaming(): void {
    if (!this.#pending) return;
    const exchange = this.#pending;
    this.#pending = undefined;
    this.beforeFirstWrite?.(undefined, this);
    this.#attach(exchange, true);
  }

  #attach(exchange: HttpExchange, prime: boolean, replayed: readonly string[] = []): void {
    const sink = exchange.openSse(this.#settings.headers);
    this.#sink = sink;
    for (const text of replayed) sink.write(text);
    sink.onclose = () => {
      if (this.#sink === sink) this.#detach(false);
    };
    if (prime && this.#settings.priming) {
      // The priming event takes a sequence number of its own, so replay after it starts with the next event.
      this.#seq++;
      this.#deliveredSeq = this.#seq;
      sink.write(ssePriming(`${this.key}_${this.#seq}`, this.#settings.retryMs));
    }
    if (this.#settings.keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), this.#settings.keepAliveMs);
      this.#keepAlive.unref?.();
    }
  }

  #detach(end: boolean): void {
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    const sink = this.#sink;
    this.#sink = undefined;
    if (end && sink) {
      // A server-side close of an unfinished stream tells the client when to come back (SEP-1699).
      if (!this.complete && this.#settings.priming) sink.write(`retry: ${this.#settings.retryMs}\n\n`);
      sink.end();
    }
  }

  #emit(json: string): void {
    this.#seq++;
    const text = sseMessage(json, `${this.key}_${this.#seq}`);
    const events = (this.#events ??= []);
    events.push({ seq: this.#seq, text });
    this.#settings.persist?.(this.key, this.#seq, json);
    if (events.length > this.#settings.maxEvents) events.shift();
    if (this.#sink && !this.#sink.closed) {
      this.#sink.write(text);
      this.#deliveredSeq = this.#seq;
    }
  }

  #finish(): void {
    this.complete = true;
    if (this.#sink) this.#detach(true);
  }
}

/** Splits an event id `<stream>_<seq>`; undefined when it is not one of ours. */
export function parseEventId(id: string): { key: string; seq: number } | undefined {
  const at = id.lastIndexOf('_');
  if (at <= 0) return undefined;
  const seq = Number(id.slice(at + 1));
  return Number.isSafeInteger(seq) && seq >= 0 ? { key: id.slice(0, at), seq } : undefined;
}
