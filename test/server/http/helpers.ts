import { request as httpRequest } from 'node:http';
import { createParser } from 'eventsource-parser';
import { type ListenOptions, type Listening, listen } from '../../../src/server/http.js';
import { TestServer } from './dispatcher.js';

export const MODERN = '2026-07-28';

export interface Harness {
  readonly server: TestServer;
  readonly http: Listening;
  readonly url: string;
}

export async function start(options: ListenOptions = {}): Promise<Harness> {
  const server = new TestServer();
  const http = await listen(server, { keepAliveMs: 0, ...options });
  return { server, http, url: http.url };
}

export function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** A well-formed 2026-07-28 request and the headers that mirror it. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): { body: Record<string, unknown>; headers: Record<string, string> } {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: meta(params._meta as Record<string, unknown>) },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (typeof params.uri === 'string') headers['mcp-name'] = params.uri;
  return { body, headers };
}

export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** Reads a whole (finite) SSE body; also reports `retry` values. */
export async function readSse(response: Response): Promise<{ events: SseEvent[]; retry: number[] }> {
  const events: SseEvent[] = [];
  const retry: number[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ id: event.id, event: event.event, data: event.data }),
    onRetry: (value) => retry.push(value),
  });
  parser.feed(await response.text());
  return { events, retry };
}

/** Reads SSE events from a live stream until `count` arrived, then cancels the body. */
export async function takeSse(response: Response, count: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ id: event.id, event: event.event, data: event.data }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel().catch(() => {});
  return events;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * node:http request with full control over headers (Host, Origin, Content-Length) and the body, sent as given
 * chunks (chunked encoding unless a Content-Length header is set).
 */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; chunks?: Array<string | Buffer> },
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? 'POST',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // The server may answer (413) and close before the whole body is written.
    req.on('error', (error) => reject(error));
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

export function jsonHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
}
