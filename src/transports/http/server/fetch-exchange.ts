import type { MessageExtra } from '../../../jsonrpc/transport.js';
import type { BodyLimits, BodyResult, HttpExchange, SseSink, StreamControl } from './exchange.js';
import { SSE_HEADERS } from './wire.js';
import { withoutCredentials } from './auth.js';

const encoder = new TextEncoder();
// fatal: a body that is not UTF-8 is refused, not silently patched with U+FFFD.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class StreamSseSink implements SseSink {
  onclose?: () => void;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  readonly stream: ReadableStream<Uint8Array>;

  constructor() {
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.lost(),
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  write(chunk: string): void {
    if (this.#closed) return;
    try {
      this.#controller?.enqueue(encoder.encode(chunk));
    } catch {
      this.lost();
    }
  }

  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller?.close();
    } catch {
      // Already errored or cancelled by the consumer.
    }
  }

  lost(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/**
 * The web-standard edge (Bun, Deno, Workers, Node's fetch servers): the answer is a Response the handler's
 * promise resolves to, as soon as its first byte is decided (JSON at the end, or an SSE stream early).
 */
export class FetchExchange implements HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly urlHost: string | undefined;
  responded = false;
  readonly response: Promise<Response>;
  readonly #request: Request;
  readonly #url: URL;
  authInfo: unknown;
  principal: string | undefined;
  credentialsConsumed = false;
  #handlerHeaders: Headers | undefined;
  #resolve!: (response: Response) => void;

  constructor(request: Request, authInfo: unknown) {
    this.#request = request;
    this.authInfo = authInfo;
    this.#url = new URL(request.url);
    this.method = request.method;
    this.path = this.#url.pathname;
    this.urlHost = this.#url.host;
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  readonly header = (name: string): string | undefined => this.#request.headers.get(name) ?? undefined;

  query(name: string): string | undefined {
    return this.#url.searchParams.get(name) ?? undefined;
  }

  async readBody(limits: BodyLimits): Promise<BodyResult> {
    const declared = this.#request.headers.get('content-length');
    if (declared !== null && Number(declared) > limits.maxBytes) return { ok: false, reason: 'too_large' };
    const body = this.#request.body;
    if (!body) return { ok: true, text: '' };
    const reader = body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), limits.timeoutMs);
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const next = await Promise.race([reader.read(), timeout]);
        if (next === 'timeout' || (!next.done && (size += next.value.byteLength) > limits.maxBytes)) {
          await reader.cancel().catch(() => {});
          return { ok: false, reason: next === 'timeout' ? 'timeout' : 'too_large' };
        }
        if (next.done) break;
        chunks.push(next.value);
      }
    } catch {
      return { ok: false, reason: 'aborted' };
    } finally {
      clearTimeout(timer);
    }
    return decodeUtf8(chunks, size);
  }

  extra(sessionId?: string, control?: StreamControl): MessageExtra {
    const headers = this.credentialsConsumed
      ? (this.#handlerHeaders ??= withoutCredentials(this.#request.headers))
      : this.#request.headers;
    if (!control) return { headers, authInfo: this.authInfo, sessionId };
    return {
      headers,
      authInfo: this.authInfo,
      sessionId,
      closeSSEStream: () => control.closeSSEStream(),
      closeStandaloneSSEStream: () => control.closeStandaloneSSEStream(),
    };
  }

  respond(status: number, headers: Record<string, string> | undefined, body?: string): void {
    if (this.responded) return;
    this.responded = true;
    const init = body === undefined ? { ...headers } : { 'content-type': 'application/json', ...headers };
    this.#resolve(new Response(body ?? null, { status, headers: init }));
  }

  openSse(headers: Record<string, string> | undefined): SseSink {
    this.responded = true;
    const sink = new StreamSseSink();
    this.#request.signal?.addEventListener('abort', () => sink.lost(), { once: true });
    this.#resolve(
      new Response(sink.stream, {
        status: 200,
        headers: headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS,
      }),
    );
    return sink;
  }

  onAbort(listener: () => void): void {
    this.#request.signal?.addEventListener(
      'abort',
      () => {
        if (!this.responded) listener();
      },
      { once: true },
    );
  }
}

function decodeUtf8(chunks: readonly Uint8Array[], size: number): BodyResult {
  let bytes = chunks[0] ?? new Uint8Array(0);
  if (chunks.length > 1) {
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    return { ok: false, reason: 'invalid_utf8' };
  }
}
