import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import type { MessageExtra } from '../../../jsonrpc/transport.js';
import { CREDENTIAL_HEADERS } from './auth.js';
import type { BodyLimits, BodyResult, HttpExchange, SseSink, StreamControl } from './exchange.js';
import { SSE_HEADERS } from './wire.js';

function toWebHeaders(source: IncomingHttpHeaders, withCredentials: boolean): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || (!withCredentials && CREDENTIAL_HEADERS.has(name))) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

const EMPTY = Buffer.alloc(0);

/** The body as text; Buffer#toString would silently turn bad bytes into U+FFFD and parse something never sent. */
function decodeBody(bytes: Buffer): BodyResult {
  return isUtf8(bytes) ? { ok: true, text: bytes.toString('utf8') } : { ok: false, reason: 'invalid_utf8' };
}

/** Flat [name, value, ...] list, which writeHead takes without building a header object. */
function flatHeaders(
  contentType: string | undefined,
  body: string | undefined,
  extra?: Record<string, string>,
): string[] {
  const flat: string[] =
    body === undefined
      ? ['content-length', '0']
      : [
          'content-type',
          contentType ?? 'application/json',
          'content-length',
          String(Buffer.byteLength(body)),
        ];
  if (extra) for (const name in extra) flat.push(name, extra[name] as string);
  return flat;
}

/**
 * MessageExtra whose web Headers are built only when a handler reads them, and whose polling controls are
 * functions only when a handler reads them (prototype getters: cheap to create).
 */
class NodeMessageExtra {
  readonly authInfo: unknown;
  readonly sessionId: string | undefined;
  readonly #req: IncomingMessage;
  readonly #withCredentials: boolean;
  readonly #control: StreamControl | undefined;
  #headers: Headers | undefined;

  constructor(
    req: IncomingMessage,
    sessionId: string | undefined,
    authInfo: unknown,
    withCredentials: boolean,
    control: StreamControl | undefined,
  ) {
    this.#req = req;
    this.sessionId = sessionId;
    this.authInfo = authInfo;
    this.#withCredentials = withCredentials;
    this.#control = control;
  }

  get headers(): Headers {
    this.#headers ??= toWebHeaders(this.#req.headers, this.#withCredentials);
    return this.#headers;
  }

  get closeSSEStream(): (() => void) | undefined {
    const control = this.#control;
    return control && (() => control.closeSSEStream());
  }

  get closeStandaloneSSEStream(): (() => void) | undefined {
    const control = this.#control;
    return control && (() => control.closeStandaloneSSEStream());
  }

  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.#req.socket.remotePort;
  }
}

class NodeSseSink implements SseSink {
  onclose?: () => void;
  #closed = false;
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get closed(): boolean {
    return this.#closed || this.#res.destroyed;
  }

  write(chunk: string): void {
    if (!this.closed) this.#res.write(chunk);
  }

  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#res.destroyed) this.#res.end();
  }

  /** The client went away. */
  lost(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/**
 * The node:http edge: headers read straight from `req.headers`, the body read chunk by chunk under a cap,
 * responses written with writeHead + end (an explicit Content-Length keeps keep-alive connections cheap).
 */
export class NodeExchange implements HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly urlHost = undefined;
  responded = false;
  authInfo: unknown;
  principal: string | undefined;
  credentialsConsumed = false;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #search: string | undefined;
  #closeAfterResponse = false;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.#req = req;
    this.#res = res;
    // Set by an auth middleware in front of the handler (the convention of node frameworks).
    this.authInfo = (req as IncomingMessage & { auth?: unknown }).auth;
    this.method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const question = url.indexOf('?');
    this.path = question === -1 ? url : url.slice(0, question);
    this.#search = question === -1 ? undefined : url.slice(question + 1);
  }

  readonly header = (name: string): string | undefined => {
    const value = this.#req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };

  query(name: string): string | undefined {
    return this.#search === undefined
      ? undefined
      : (new URLSearchParams(this.#search).get(name) ?? undefined);
  }

  /**
   * A body already whole is taken at once: no listeners, no timer, no promise. The node handler hands the
   * request on one microtask after node's 'request' event (createNodeHandler), by which time the parser has
   * buffered the body that came in the same read as the headers.
   */
  readBody(limits: BodyLimits): BodyResult | Promise<BodyResult> {
    const req = this.#req;
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limits.maxBytes) {
      this.#closeAfterResponse = true;
      return { ok: false, reason: 'too_large' };
    }
    return this.#bufferedBody(limits, declared) ?? this.#streamBody(limits);
  }

  /**
   * The whole body when node holds all of it and nobody else reads it; undefined otherwise. Node marks the
   * request complete only in a later callback, but a buffer as long as the declared Content-Length is whole.
   */
  #bufferedBody(limits: BodyLimits, declared: string | undefined): BodyResult | undefined {
    const req = this.#req;
    if (req.readableFlowing !== null || req.destroyed) return undefined;
    const whole = req.complete || (declared !== undefined && req.readableLength === Number(declared));
    if (!whole) return undefined;
    if (req.readableLength > limits.maxBytes) {
      // A chunked body past the cap (a declared length was checked above): drop it, close after answering.
      this.#closeAfterResponse = true;
      req.resume();
      return { ok: false, reason: 'too_large' };
    }
    const bytes = (req.read() as Buffer | null) ?? EMPTY;
    // Not yet marked complete: flowing, the request still ends (and closes) when node finishes the message.
    if (!req.complete) req.resume();
    return decodeBody(bytes);
  }

  /** Reads a body still arriving, chunk by chunk under the cap and the timeout. */
  #streamBody(limits: BodyLimits): Promise<BodyResult> {
    const req = this.#req;
    return new Promise((resolve) => {
      let chunks: Buffer[] = [];
      let size = 0;
      const finish = (result: BodyResult) => {
        clearTimeout(timer);
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
        chunks = [];
        resolve(result);
      };
      const refuse = (reason: 'too_large' | 'timeout') => {
        // A lying Content-Length, a chunked body past the cap or a body that stalls: stop buffering, discard
        // the rest, and close the connection once the answer is out.
        this.#closeAfterResponse = true;
        finish({ ok: false, reason });
        req.resume();
      };
      const timer = setTimeout(() => refuse('timeout'), limits.timeoutMs);
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) return refuse('too_large');
        chunks.push(chunk);
      };
      const onEnd = () => {
        const first = chunks[0];
        finish(decodeBody(chunks.length === 1 && first ? first : Buffer.concat(chunks, size)));
      };
      const onError = () => finish({ ok: false, reason: 'aborted' });
      const onClose = () => {
        if (!req.complete) finish({ ok: false, reason: 'aborted' });
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }

  extra(sessionId?: string, control?: StreamControl): MessageExtra {
    const extra = new NodeMessageExtra(
      this.#req,
      sessionId,
      this.authInfo,
      !this.credentialsConsumed,
      control,
    );
    return extra as unknown as MessageExtra;
  }

  respond(status: number, headers: Record<string, string> | undefined, body?: string): void {
    if (this.responded || this.#res.destroyed) return;
    this.responded = true;
    const flat = flatHeaders(undefined, body, headers);
    if (this.#closeAfterResponse) flat.push('connection', 'close');
    this.#res.writeHead(status, flat);
    this.#res.end(body);
  }

  openSse(headers: Record<string, string> | undefined): SseSink {
    this.responded = true;
    const res = this.#res;
    const sink = new NodeSseSink(res);
    if (res.destroyed) {
      sink.lost();
      return sink;
    }
    res.writeHead(200, headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS);
    res.flushHeaders();
    res.on('close', () => sink.lost());
    return sink;
  }

  onAbort(listener: () => void): void {
    const res = this.#res;
    res.on('close', () => {
      if (!res.writableFinished) listener();
    });
  }
}
