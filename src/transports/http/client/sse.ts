import type { Agent, OutgoingHttpHeaders } from 'node:http';
import { LocalError } from '../../../jsonrpc/errors.js';
import { stringifyMessage } from '../../../jsonrpc/serialise.js';
import type { JSONRPCMessage } from '../../../jsonrpc/messages.js';
import type { Transport } from '../../../jsonrpc/transport.js';
import { withTimeout } from '../../../util/abort.js';
import { deferred } from '../../../util/deferred.js';
import { type Logger, silentLogger } from '../../../util/logger.js';
import type { HttpRequestHeaderHook } from './options.js';
import { ERROR_BODY_CAP, HttpStatusError, errorHeadersOf } from './errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, contentTypeOf, openRequest, readBody, readSse } from './node-http.js';
import { copyTraceHeaders } from '../header-values.js';

export interface SseClientOptions {
  headers?: Record<string, string>;
  /** Headers for each HTTP request (the GET stream and every POST), computed when it is made. */
  httpHeaders?: HttpRequestHeaderHook;
  maxResponseBytes?: number;
  agent?: Agent;
  logger?: Logger;
  /** How long to wait for the stream and its `endpoint` event (default 10 s). */
  connectTimeoutMs?: number;
}

/**
 * The deprecated 2024-11-05 HTTP+SSE transport, for old servers: a GET opens an SSE stream whose first event,
 * `endpoint`, names the URL to POST messages to; every server message (responses too) arrives on the stream.
 */
export class SseClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];

  readonly url: URL;
  readonly #options: SseClientOptions;
  readonly #logger: Logger;
  readonly #lifetime = new AbortController();
  #endpoint: URL | undefined;
  #closedFired = false;

  constructor(url: string | URL, options: SseClientOptions = {}) {
    this.url = new URL(url);
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The POST endpoint the server announced. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  async start(): Promise<void> {
    const headers: OutgoingHttpHeaders = { ...this.#options.headers, accept: 'text/event-stream' };
    const hook = this.#options.httpHeaders;
    if (hook) Object.assign(headers, await hook({ method: 'GET', url: this.url }));
    const opened = openRequest(this.url, {
      method: 'GET',
      headers,
      signal: this.#lifetime.signal,
      agent: this.#options.agent,
    });
    const timeoutMs = this.#options.connectTimeoutMs ?? 10_000;
    // A server that never answers the GET must not hang the connect: the same bound as the endpoint event.
    const response = await withTimeout(opened.response, timeoutMs, () => {
      this.#lifetime.abort();
      return new LocalError('timeout', `no answer to the SSE GET within ${timeoutMs} ms`);
    });
    if (response.statusCode !== 200 || contentTypeOf(response) !== 'text/event-stream') {
      const body = await readBody(response, ERROR_BODY_CAP).catch(() => '');
      throw new HttpStatusError(response.statusCode ?? 0, body, {
        method: 'GET (HTTP+SSE)',
        headers: errorHeadersOf(response),
      });
    }
    const endpoint = deferred<URL>();
    const timer = setTimeout(
      () => endpoint.reject(new LocalError('timeout', 'no endpoint event from the SSE server')),
      timeoutMs,
    );
    const reading = readSse(
      response,
      {
        onevent: (event) => {
          if (event.event === 'endpoint') {
            const url = new URL(event.data.trim(), this.url);
            // The endpoint must stay on the server's origin: a stream must not redirect our messages elsewhere.
            if (url.origin !== this.url.origin)
              endpoint.reject(new LocalError('protocol_error', `endpoint ${url.href} is on another origin`));
            else endpoint.resolve(url);
            return;
          }
          if (event.event !== undefined && event.event !== 'message') return;
          this.#deliver(event.data);
        },
      },
      this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    );
    reading.then(
      () => this.#fireClose(new LocalError('connection_closed', 'the SSE stream ended')),
      (error: unknown) => this.#fireClose(this.#lifetime.signal.aborted ? undefined : (error as Error)),
    );
    try {
      this.#endpoint = await Promise.race([
        endpoint.promise,
        reading.then(() =>
          Promise.reject(
            new LocalError('connection_closed', 'the SSE stream ended before the endpoint event'),
          ),
        ),
      ]);
    } catch (error) {
      this.#lifetime.abort();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const endpoint = this.#endpoint;
    if (!endpoint || this.#closedFired)
      throw new LocalError('not_connected', 'HTTP+SSE transport is not connected');
    const headers: OutgoingHttpHeaders = { ...this.#options.headers, 'content-type': 'application/json' };
    if ('method' in message) copyTraceHeaders(message.params?._meta, headers);
    const hook = this.#options.httpHeaders;
    if (hook) Object.assign(headers, await hook({ method: 'POST', url: endpoint }));
    const opened = openRequest(endpoint, {
      method: 'POST',
      headers,
      body: stringifyMessage(message),
      signal: this.#lifetime.signal,
      agent: this.#options.agent,
    });
    const response = await opened.response;
    const body = await readBody(response, ERROR_BODY_CAP).catch(() => '');
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300)
      throw new HttpStatusError(status, body, {
        method: 'POST (HTTP+SSE)',
        headers: errorHeadersOf(response),
      });
  }

  async close(): Promise<void> {
    this.#lifetime.abort(new LocalError('connection_closed', 'closed'));
    this.#fireClose(undefined);
  }

  #deliver(data: string): void {
    if (data.trim() === '') return;
    try {
      this.onmessage?.(JSON.parse(data));
    } catch (error) {
      this.#logger.warn('invalid JSON on the SSE stream', error);
      this.onerror?.(
        new LocalError('protocol_error', `invalid JSON on the SSE stream: ${(error as Error).message}`),
      );
    }
  }

  #fireClose(reason: Error | undefined): void {
    if (this.#closedFired) return;
    this.#closedFired = true;
    this.onclose?.(reason);
  }
}
