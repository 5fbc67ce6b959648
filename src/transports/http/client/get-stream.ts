/**
 * The GET side of Streamable HTTP (2025-11-25 basic/transports): the standalone stream of server-initiated
 * messages, and resuming a request's interrupted stream with `Last-Event-ID`. Both are session-mode only; the
 * transport decides when, this module how (retry delays, attempt counting, what a dropped stream means).
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { LocalError } from '../../../mcp/local-errors.js';
import type { JSONRPCRequest, RequestId } from '../../../jsonrpc/messages.js';
import { delay } from '../../../util/abort.js';
import { deferred } from '../../../util/deferred.js';
import type { Logger } from '../../../util/logger.js';
import { ERROR_BODY_CAP, HttpStatusError, errorHeadersOf } from './errors.js';
import { type OpenedRequest, contentTypeOf, readBody } from './node-http.js';

/** A GET stream open this long before it dropped was working; its drop does not count as a failure. */
const STABLE_STREAM_MS = 5_000;

/** Where reading one SSE stream got to: whether the awaited response came, and the id to resume after. */
export interface StreamState {
  answered: boolean;
  lastEventId?: string;
}

/** What the GET streams need of their transport. */
export interface GetStreamHost {
  closed(): boolean;
  /** The server's latest `retry` field (ms), the wait before each reconnection. */
  retryMs(): number;
  readonly maxReconnectAttempts: number;
  /** Aborted when the transport closes. */
  readonly lifetime: AbortSignal;
  readonly logger: Logger;
  /** Opens one GET in the current session, with `Last-Event-ID` when resuming. */
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<OpenedRequest>;
  /** Reads an SSE body to its end, delivering each message; marks `state.answered` on `awaitedId`'s response. */
  read(
    response: IncomingMessage,
    awaitedId: RequestId | undefined,
    state: StreamState,
    request: ClientRequest,
  ): Promise<void>;
}

export class GetStreams {
  readonly #host: GetStreamHost;
  #running = false;
  #opened: Promise<boolean> | undefined;

  constructor(host: GetStreamHost) {
    this.#host = host;
  }

  /** 2025-11-25 Resumability and Redelivery: the rest of `message`'s stream, always by GET with Last-Event-ID. */
  async resume(
    message: JSONRPCRequest,
    state: StreamState & { lastEventId: string },
    signal: AbortSignal,
  ): Promise<void> {
    for (let attempt = 0; attempt < this.#host.maxReconnectAttempts && !state.answered; attempt++) {
      await delay(this.#host.retryMs(), signal);
      const outcome = await this.#stream(state.lastEventId, signal, message.id, state).catch(
        (error: unknown) => error,
      );
      if (outcome === 'unsupported') break;
    }
    if (state.answered || signal.aborted) return;
    throw new LocalError('connection_closed', `could not resume the stream for ${message.method}`);
  }

  /**
   * 2025-11-25: the standalone GET stream for server-initiated messages. Reconnects after the server's
   * `retry` with `Last-Event-ID`, at most `maxReconnectAttempts` times in a row; stops quietly on 405.
   */
  open(): void {
    if (this.#running || this.#host.closed()) return;
    this.#running = true;
    const opened = deferred<boolean>();
    this.#opened = opened.promise;
    void this.#run(opened.resolve).finally(() => {
      this.#running = false;
      opened.resolve(false);
    });
  }

  /**
   * Resolves once the GET stream answered: true when it is open (server messages can flow), false when the
   * server has none or it is not running. Subscribing waits for it so no early notification is lost.
   */
  ready(): Promise<boolean> {
    return this.#opened ?? Promise.resolve(false);
  }

  async #run(onopen: (open: boolean) => void): Promise<void> {
    const host = this.#host;
    const state: StreamState = { answered: false };
    let failures = 0;
    while (!host.closed() && failures < host.maxReconnectAttempts) {
      const before = state.lastEventId;
      const startedAt = Date.now();
      let opened = false;
      try {
        const outcome = await this.#stream(state.lastEventId, host.lifetime, undefined, state, (open) => {
          opened = open;
          onopen(open);
        });
        if (outcome === 'unsupported') return;
      } catch (error) {
        onopen(false);
        if (host.closed()) return;
        host.logger.debug('GET stream dropped', error);
      }
      // Only failures in a row count: a stream that delivered events or stayed up a while (a proxy's idle cut)
      // earns a fresh set of attempts, so a long session keeps its GET stream.
      const healthy = state.lastEventId !== before || (opened && Date.now() - startedAt >= STABLE_STREAM_MS);
      failures = healthy ? 0 : failures + 1;
      await delay(host.retryMs(), host.lifetime).catch(() => {});
    }
  }

  /** One GET stream: resolves 'unsupported' when the server has none (405 and other 4xx). */
  async #stream(
    lastEventId: string | undefined,
    signal: AbortSignal,
    awaitedId?: RequestId,
    state: StreamState = { answered: false },
    onopen?: (open: boolean) => void,
  ): Promise<'ended' | 'unsupported'> {
    const opened = await this.#host.open(lastEventId, AbortSignal.any([signal, this.#host.lifetime]));
    const response = await opened.response;
    const open = response.statusCode === 200 && contentTypeOf(response) === 'text/event-stream';
    onopen?.(open);
    if (!open) {
      await readBody(response, ERROR_BODY_CAP).catch(() => '');
      if ((response.statusCode ?? 0) >= 400 && (response.statusCode ?? 0) < 500) return 'unsupported';
      throw new HttpStatusError(response.statusCode ?? 0, '', {
        method: 'GET',
        headers: errorHeadersOf(response),
      });
    }
    await this.#host.read(response, awaitedId, state, opened.request).catch((error) => {
      if (!state.answered) throw error;
    });
    return 'ended';
  }
}
