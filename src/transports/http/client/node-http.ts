/**
 * The client's HTTP layer on node:http: pooled keep-alive agents (fetch costs several times the CPU per request
 * on Node), bodies read against a byte cap, and SSE parsed with eventsource-parser.
 */
import type * as Http from 'node:http';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import { urlToHttpOptions } from 'node:url';
import { StringDecoder } from 'node:string_decoder';
import { type EventSourceMessage, createParser } from 'eventsource-parser';
import { LocalError } from '../../../mcp/local-errors.js';

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * node:http, and node:https with node:tls, loaded when the first request is made: together they add about 1.2 MB
 * to the heap of a process that imports them, which a client that only speaks stdio never needs.
 */
const require = createRequire(import.meta.url);
let httpModule: typeof Http | undefined;
let httpsModule: typeof Https | undefined;
export const nodeHttp = (): typeof Http => (httpModule ??= require('node:http') as typeof Http);
export const nodeHttps = (): typeof Https => (httpsModule ??= require('node:https') as typeof Https);

/**
 * The shared keep-alive agents. node copies an agent's constructor options into every request's options (twice,
 * into dictionary-mode objects), so only `keepAlive` goes there; the pool size and the TCP keep-alive delay are
 * the properties node reads them into (about 850 bytes less allocated per request).
 */
function pooledAgent<T extends Http.Agent>(agent: T): T {
  // keepAliveMsecs is read by keepSocketAlive; @types/node does not declare the property.
  return Object.assign(agent, { maxSockets: 256, keepAliveMsecs: 10_000 });
}

let httpAgent: Http.Agent | undefined;
let httpsAgent: Https.Agent | undefined;

function sharedAgent(secure: boolean): Http.Agent {
  if (secure) return (httpsAgent ??= pooledAgent(new (nodeHttps().Agent)({ keepAlive: true })));
  return (httpAgent ??= pooledAgent(new (nodeHttp().Agent)({ keepAlive: true })));
}

interface HttpRequestInit {
  method: 'GET' | 'POST' | 'DELETE';
  /** Taken over by the request (content-length is added to it): pass a fresh object. */
  headers: OutgoingHttpHeaders;
  body?: string;
  signal?: AbortSignal;
  /** Replaces the shared keep-alive agent (tests, proxies). */
  agent?: Http.Agent;
}

/** An endpoint's request options, derived from its URL once instead of on every request. */
export interface RequestTarget {
  readonly href: string;
  readonly secure: boolean;
  readonly options: Readonly<RequestOptions>;
  /** The Host header (url.host: brackets for IPv6, the port unless it is the default). */
  readonly host: string;
}

export function requestTarget(url: URL): RequestTarget {
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
  const options: RequestOptions = { protocol, hostname, port, path };
  if (auth) options.auth = auth;
  return { href: url.href, secure: url.protocol === 'https:', options, host: url.host };
}

/**
 * The headers as the flat [name, value, ...] list node:http writes as given: with an object it validates and
 * stores each header through setHeader, then copies them out again. The list form adds no Host header of its
 * own, so it carries one.
 */
function headerList(host: string, headers: OutgoingHttpHeaders): string[] {
  const list: string[] = [];
  let hasHost = false;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (name.length === 4 && name.toLowerCase() === 'host') hasHost = true;
    if (Array.isArray(value)) for (const item of value) list.push(name, item);
    else list.push(name, String(value));
  }
  if (!hasHost) list.push('host', host);
  return list;
}

export interface OpenedRequest {
  readonly request: ClientRequest;
  readonly response: Promise<IncomingMessage>;
}

/** Where a request started by `startRequest` reports: the head of its response, or its failure. */
export interface ResponseSink {
  onresponse(response: IncomingMessage): void;
  /** A network failure or a cancellation before the response's head, as `requestFailure` words it. */
  onfailure(error: NodeJS.ErrnoException): void;
}

const SINK = Symbol('responseSink');
type SinkedRequest = ClientRequest & { [SINK]: ResponseSink };

// Shared by every request (node calls a listener with the emitter as `this`): no closure per request. `on`, not
// `once`: each event fires at most once per request, and `once` allocates a wrapper per listener.
function sinkResponse(this: SinkedRequest, response: IncomingMessage): void {
  this[SINK].onresponse(response);
}
function sinkError(this: SinkedRequest, error: NodeJS.ErrnoException): void {
  this[SINK].onfailure(error);
}

/** A request's failure in the client's words: `cancelled` when it was aborted, `transport_error` otherwise. */
export function requestFailure(method: string, href: string, error: NodeJS.ErrnoException): LocalError {
  if (error.name === 'AbortError') return new LocalError('cancelled', `${method} ${href} aborted`);
  return new LocalError('transport_error', `${method} ${href} failed: ${error.message}`, { cause: error });
}

/**
 * Starts a request whose response head and failure go to `sink`; throws when node refuses the request
 * synchronously (an invalid header value).
 */
export function startRequest(
  where: URL | RequestTarget,
  init: HttpRequestInit,
  sink: ResponseSink,
): ClientRequest {
  const target = where instanceof URL ? requestTarget(where) : where;
  const headers = init.headers;
  if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
  // A literal, not a spread of target.options: on Node 20 a spread plus extra keys is a slow runtime path. No
  // `protocol`: node copies the options into null-prototype (dictionary) objects twice per request, each key at
  // a cost, and takes the protocol from the module (http or https) that makes the request, which is the URL's.
  const base = target.options;
  const options: RequestOptions = {
    hostname: base.hostname,
    port: base.port,
    path: base.path,
    method: init.method,
    // URL credentials become an Authorization header only in the object form.
    headers: base.auth ? headers : headerList(target.host, headers),
    agent: init.agent ?? sharedAgent(target.secure),
  };
  if (base.auth) options.auth = base.auth;
  // Only a request that can be cancelled by signal pays for the abort listener Node adds for it.
  if (init.signal) options.signal = init.signal;
  const request = (target.secure ? nodeHttps() : nodeHttp()).request(options) as SinkedRequest;
  request[SINK] = sink;
  request.on('response', sinkResponse);
  request.on('error', sinkError);
  request.end(init.body);
  return request;
}

/** Starts a request; `response` settles with the status line and headers, or rejects on a network failure. */
export function openRequest(where: URL | RequestTarget, init: HttpRequestInit): OpenedRequest {
  const target = where instanceof URL ? requestTarget(where) : where;
  let sink: ResponseSink | undefined;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    sink = {
      onresponse: resolve,
      onfailure: (error) => reject(requestFailure(init.method, target.href, error)),
    };
  });
  // The executor above has run: the sink is set. A request node refuses throws here, as before.
  return { request: startRequest(target, init, sink as ResponseSink), response };
}

function responseClosedEarly(response: IncomingMessage): LocalError {
  return new LocalError(
    'connection_closed',
    `HTTP response closed before it was complete (status ${response.statusCode})`,
  );
}

/**
 * The whole body as text when node has already parsed all of it: a small answer comes in the read that carries
 * its headers, so it is complete by the time the code awaiting the response runs, and is taken at once (no
 * listeners, no promise). Undefined while the body is still arriving, or when it is over `maxBytes` (readBody
 * then refuses it as it always does).
 */
export function bufferedBody(response: IncomingMessage, maxBytes: number): string | undefined {
  if (!response.complete || response.readableFlowing !== null || response.readableLength > maxBytes)
    return undefined;
  const body = response.read() as Buffer | null;
  return body === null ? '' : body.toString('utf8');
}

/** Reads a whole body as text; a body over `maxBytes` destroys the response and rejects with `response_too_large`. */
export function readBody(response: IncomingMessage, maxBytes: number): Promise<string> {
  return collectBody(response, maxBytes, tooLarge, (body) => body.toString('utf8'));
}

/**
 * Collects a whole body, at most `maxBytes` (by Content-Length up front, then as it arrives): past that the
 * response is destroyed and the promise rejects with `tooLargeError(maxBytes)`.
 */
export function collectBody<T>(
  response: IncomingMessage,
  maxBytes: number,
  tooLargeError: (maxBytes: number) => Error,
  finish: (body: Buffer) => T,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy();
      reject(tooLargeError(maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(tooLargeError(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => {
      const first = chunks[0];
      resolve(finish(chunks.length === 1 && first ? first : Buffer.concat(chunks, size)));
    });
    response.on('error', (error) =>
      reject(new LocalError('connection_closed', error.message, { cause: error })),
    );
    response.on('close', () => {
      if (!response.complete) reject(responseClosedEarly(response));
    });
  });
}

function tooLarge(maxBytes: number): LocalError {
  return new LocalError('response_too_large', `response exceeded the ${maxBytes}-byte cap`, {
    data: { maxBytes },
  });
}

interface SseHandlers {
  onevent(event: EventSourceMessage): void;
  /** The stream's `retry` field (milliseconds to wait before reconnecting). */
  onretry?(ms: number): void;
}

/**
 * Reads an SSE body until it ends. Resolves on a clean end, rejects when the connection drops or one event
 * grows past `maxEventBytes` (the stream may be long-lived, so the cap is per event, not per stream).
 */
export function readSse(
  response: IncomingMessage,
  handlers: SseHandlers,
  maxEventBytes: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = 0;
    let failed = false;
    const parser = createParser({
      onEvent: (event) => {
        pending = 0;
        handlers.onevent(event);
      },
      onRetry: (ms) => handlers.onretry?.(ms),
    });
    const decoder = new StringDecoder('utf8');
    response.on('data', (chunk: Buffer) => {
      if (failed) return;
      pending += chunk.length;
      if (pending > maxEventBytes) {
        failed = true;
        response.destroy();
        reject(tooLarge(maxEventBytes));
        return;
      }
      parser.feed(decoder.write(chunk));
    });
    response.once('end', () => {
      if (failed) return;
      parser.feed(decoder.end());
      resolve();
    });
    response.once('error', (error) => {
      if (!failed) reject(new LocalError('connection_closed', error.message, { cause: error }));
    });
    response.once('close', () => {
      if (!response.complete && !failed) reject(responseClosedEarly(response));
    });
  });
}

export function contentTypeOf(response: IncomingMessage): string {
  const value = response.headers['content-type'];
  // The common exact values need no split/trim/lowercase (three strings per response otherwise).
  if (value === 'application/json' || value === 'text/event-stream') return value;
  return (Array.isArray(value) ? value[0] : value)?.split(';')[0]?.trim().toLowerCase() ?? '';
}

export function headerOf(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
