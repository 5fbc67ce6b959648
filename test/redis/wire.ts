/** Raw MCP over HTTP for the scale-out tests: 2026-07-28 requests, 2025-11-25 sessions, SSE readers. */
import { createParser } from 'eventsource-parser';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

export type Message = Record<string, any>;

let nextId = 1;

function modernMeta(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
}

/** The first JSON-RPC response in a body that is JSON or an SSE stream. */
async function responseOf(response: Response): Promise<Message> {
  const text = await response.text();
  if (!response.headers.get('content-type')?.includes('text/event-stream')) return JSON.parse(text);
  const messages: Message[] = [];
  const parser = createParser({ onEvent: (event) => event.data && messages.push(JSON.parse(event.data)) });
  parser.feed(text);
  const found = messages.find((message) => 'result' in message || 'error' in message);
  if (!found) throw new Error(`no response in ${text}`);
  return found;
}

/** One stateless 2026-07-28 request; resolves to the JSON-RPC response. */
export async function modernCall(url: string, method: string, params: Record<string, unknown> = {}) {
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta() } };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return responseOf(await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }));
}

export function textOf(response: Message): string {
  return response.result?.content?.[0]?.text ?? JSON.stringify(response);
}

export interface SseStream {
  readonly response: Response;
  readonly events: Array<{ id: string | undefined; message: Message }>;
  /** Resolves once `count` events arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Reads an SSE response as it arrives (data events parsed, priming events left out). */
export function readStream(response: Response, controller: AbortController): SseStream {
  const events: SseStream['events'] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (event.data) events.push({ id: event.id, message: JSON.parse(event.data) });
    },
  });
  void (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return {
    response,
    events,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count) {
        if (Date.now() > deadline)
          throw new Error(`waited for ${count} events, got ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => controller.abort(),
  };
}

/** Opens a 2026-07-28 listen stream (subscription id `id`). */
export async function listen(url: string, id: string, notifications: Record<string, unknown>) {
  const controller = new AbortController();
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications, _meta: modernMeta() },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  return readStream(response, controller);
}

/** A 2025-11-25 session over raw HTTP. */
export class LegacySession {
  sessionId = '';
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = LEGACY;
    }
    return headers;
  }

  async initialize(capabilities: Record<string, unknown> = { roots: {} }): Promise<Message> {
    const response = await fetch(this.#url, {
      method: 'POST',
      headers: this.#headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY,
          capabilities,
          clientInfo: { name: 'scale-out-test', version: '1' },
        },
      }),
    });
    this.sessionId = response.headers.get('mcp-session-id') ?? '';
    const message = await responseOf(response);
    await this.notify('notifications/initialized');
    return message;
  }

  async notify(method: string): Promise<number> {
    const response = await fetch(this.#url, {
      method: 'POST',
      headers: this.#headers(),
      body: JSON.stringify({ jsonrpc: '2.0', method }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  async request(method: string, params: Record<string, unknown> = {}, url = this.#url) {
    const response = await fetch(url, {
      method: 'POST',
      headers: this.#headers(),
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    if (response.status !== 200) return { status: response.status, message: await response.text() };
    return { status: 200, message: await responseOf(response) };
  }

  /** POSTs a request and reads its SSE response as it arrives (server-initiated requests come on it). */
  async stream(method: string, params: Record<string, unknown>, url = this.#url): Promise<SseStream> {
    const controller = new AbortController();
    const response = await fetch(url, {
      method: 'POST',
      headers: this.#headers(),
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: controller.signal,
    });
    return readStream(response, controller);
  }

  /** POSTs the answer to a server-initiated request; the HTTP status (202 when accepted). */
  async answer(id: unknown, result: Record<string, unknown>, url = this.#url): Promise<number> {
    const response = await fetch(url, {
      method: 'POST',
      headers: this.#headers(),
      body: JSON.stringify({ jsonrpc: '2.0', id, result }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** Opens the session's GET stream on `url` (default the session's URL), resuming after `lastEventId`. */
  async openGet(url = this.#url, lastEventId?: string): Promise<SseStream> {
    const controller = new AbortController();
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      'mcp-session-id': this.sessionId,
      'mcp-protocol-version': LEGACY,
    };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const response = await fetch(url, { headers, signal: controller.signal });
    return readStream(response, controller);
  }
}

/** A 2024-11-05 HTTP+SSE session over raw HTTP: the GET stream on `base`/sse, POSTs to its announced endpoint. */
export class SseTransportSession {
  readonly messages: Message[] = [];
  readonly #controller = new AbortController();
  #endpoint = '';
  readonly #origin: string;

  constructor(base: string) {
    this.#origin = new URL(base).origin;
  }

  get sessionId(): string {
    return new URL(this.#endpoint, this.#origin).searchParams.get('sessionId') ?? '';
  }

  /** Opens the stream; resolves once the `endpoint` event names where to POST. */
  async open(path = '/sse'): Promise<void> {
    const response = await fetch(`${this.#origin}${path}`, {
      headers: { accept: 'text/event-stream' },
      signal: this.#controller.signal,
    });
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'endpoint') this.#endpoint = event.data;
        else if (event.data) this.messages.push(JSON.parse(event.data));
      },
    });
    void (async () => {
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    })();
    const deadline = Date.now() + 10_000;
    while (!this.#endpoint) {
      if (Date.now() > deadline) throw new Error('no endpoint event');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** POSTs one message to the announced endpoint (through whatever `via` origin is given); the HTTP status. */
  async post(message: Record<string, unknown>, via = this.#origin): Promise<number> {
    const response = await fetch(new URL(this.#endpoint, via), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** Sends a request and waits for its response on the stream. */
  async request(
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<{ status: number; response?: Message }> {
    const id = nextId++;
    const status = await this.post({ id, method, params });
    if (status !== 202) return { status };
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = this.messages.find((message) => message.id === id);
      if (response) return { status, response };
      if (Date.now() > deadline) throw new Error(`no response to ${method} on the stream`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async initialize(): Promise<Message | undefined> {
    const { response } = await this.request('initialize', {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'scale-out-test', version: '1' },
    });
    await this.post({ method: 'notifications/initialized' });
    return response;
  }

  close(): void {
    this.#controller.abort();
  }
}
