import { ModelError } from '../../agent/model.js';
import { delay } from '../../util/abort.js';
import { isRecord } from '../../util/record.js';

/** Transport settings every provider accepts. */
export interface HttpOptions {
  /** Injected fetch (tests, proxies); defaults to the global one. */
  readonly fetch?: typeof fetch;
  /**
   * Milliseconds before a request with no progress is abandoned: until response headers, while a JSON
   * body is read, and between two chunks of a stream. Default 120 s.
   */
  readonly timeoutMs?: number;
  /** Retries after 429/5xx, timeouts and dropped connections (before any body was consumed). Default 2. */
  readonly maxRetries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 500 ms. */
  readonly retryBaseDelayMs?: number;
  /** Upper bound on any wait between attempts, including a server's Retry-After. Default 20 s. */
  readonly maxRetryDelayMs?: number;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>;
}

const MAX_ERROR_BODY = 64 * 1024;
const MAX_JSON_BODY = 32 * 1024 * 1024;

/**
 * Aborts a request after `timeoutMs` without progress; `touch()` restarts the clock. Linked to the
 * caller's signal so one `signal` covers both.
 */
class Deadline {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #expired = false;
  readonly #onCallerAbort: () => void;
  readonly #timeoutMs: number;
  readonly #caller: AbortSignal | undefined;

  constructor(timeoutMs: number, caller: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#caller = caller;
    this.signal = this.#controller.signal;
    this.#onCallerAbort = () => this.#controller.abort(caller?.reason);
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.touch();
  }

  touch(): void {
    clearTimeout(this.#timer);
    if (this.#controller.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#controller.abort(new Error('timeout'));
    }, this.#timeoutMs);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  /**
   * Maps whatever a fetch/read threw into what the caller should see; `request` (`POST <url>`) leads the
   * message, so "openai: POST http://127.0.0.1:3999/v1/chat/completions: ECONNREFUSED" says where and why.
   */
  failure(provider: string, error: unknown, request?: string): unknown {
    if (this.#caller?.aborted) return this.#caller.reason;
    const where = request ? `${request}: ` : '';
    if (this.#expired) {
      return new ModelError(provider, 'timeout', `${where}no response progress within ${this.#timeoutMs} ms`);
    }
    if (error instanceof ModelError) return error;
    return new ModelError(provider, 'network', `${where}${networkCause(error)}`, { cause: error });
  }
}

interface ProviderRequest {
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal?: AbortSignal | undefined;
}

/** An accepted (2xx) response together with the deadline that still guards reading its body. */
export interface OpenResponse {
  readonly response: Response;
  readonly deadline: Deadline;
}

/**
 * POSTs a JSON body with the OpenAI family's headers: `Authorization: Bearer` when there is a key, and an SSE
 * `Accept` when streaming.
 */
export function postBearerJson(
  options: HttpOptions & { readonly apiKey?: string },
  request: Omit<ProviderRequest, 'headers'> & { readonly stream: boolean },
): Promise<OpenResponse> {
  const headers: Record<string, string> = request.stream ? { accept: 'text/event-stream' } : {};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return postJson(options, {
    provider: request.provider,
    url: request.url,
    headers,
    body: request.body,
    signal: request.signal,
  });
}

/**
 * POSTs JSON with retries: 429 and 5xx (honouring Retry-After / retry-after-ms, bounded), timeouts and
 * network failures are retried up to `maxRetries` times; other statuses become a ModelError carrying the
 * body's message. The returned deadline must be disposed by the reader.
 */
export async function postJson(options: HttpOptions, request: ProviderRequest): Promise<OpenResponse> {
  const maxRetries = options.maxRetries ?? 2;
  const payload = JSON.stringify(request.body);
  for (let attempt = 0; ; attempt++) {
    const deadline = new Deadline(options.timeoutMs ?? 120_000, request.signal);
    let failure: unknown;
    let retryAfterMs: number | undefined;
    try {
      const response = await (options.fetch ?? fetch)(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...options.headers, ...request.headers },
        body: payload,
        signal: deadline.signal,
      });
      if (response.ok) return { response, deadline };
      retryAfterMs = parseRetryAfter(response.headers);
      failure = await httpError(request.provider, response, deadline);
    } catch (error) {
      failure = deadline.failure(request.provider, error, `POST ${request.url}`);
    }
    deadline.dispose();
    if (!(failure instanceof ModelError) || !failure.retryable || attempt >= maxRetries) throw failure;
    await delay(backoff(options, attempt, retryAfterMs), request.signal);
  }
}

function backoff(options: HttpOptions, attempt: number, retryAfterMs: number | undefined): number {
  const cap = options.maxRetryDelayMs ?? 20_000;
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, cap);
  const base = (options.retryBaseDelayMs ?? 500) * 2 ** attempt;
  return Math.min(base * (0.75 + Math.random() * 0.5), cap);
}

/** RFC 9110 section 10.2.3 Retry-After (seconds or HTTP-date), plus OpenAI's `retry-after-ms`. */
export function parseRetryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

async function httpError(provider: string, response: Response, deadline: Deadline): Promise<ModelError> {
  let text = '';
  try {
    text = await readText(response, MAX_ERROR_BODY, deadline, true);
  } catch {
    // The status alone still makes a useful error.
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON error pages are reported as text.
  }
  const detail = errorMessage(body) ?? (text.trim().slice(0, 500) || response.statusText);
  return new ModelError(provider, 'http', `HTTP ${response.status}: ${detail}`, {
    status: response.status,
    body,
  });
}

/** `{error:{message}}` (OpenAI, Gemini), `{type:'error',error:{message}}` (Anthropic), `[{error}]`, `{message}`. */
function errorMessage(body: unknown): string | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  if (!isRecord(first)) return undefined;
  if (typeof first.error === 'string') return first.error;
  if (isRecord(first.error) && typeof first.error.message === 'string') return first.error.message;
  return typeof first.message === 'string' ? first.message : undefined;
}

/** Reads a body as text, touching the deadline per chunk; past `limit` it fails (or truncates). */
async function readText(response: Response, limit: number, deadline: Deadline, truncate = false) {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      deadline.touch();
      size += value.byteLength;
      if (size > limit) {
        if (truncate) break;
        throw new Error(`response body exceeds ${limit} bytes`);
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return text + decoder.decode();
}

/** undici's fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is in its cause. */
function networkCause(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = (
    error as { cause?: { code?: unknown; message?: unknown; errors?: Array<{ code?: unknown }> } }
  )?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (typeof code === 'string') return code;
  return typeof cause?.message === 'string' && cause.message !== '' ? cause.message : message;
}

/** Reads and parses a JSON response body, then releases the deadline. */
export async function readJson(provider: string, open: OpenResponse): Promise<unknown> {
  try {
    const text = await readText(open.response, MAX_JSON_BODY, open.deadline);
    try {
      return JSON.parse(text);
    } catch {
      throw new ModelError(provider, 'invalid_response', `response is not JSON: ${text.slice(0, 200)}`);
    }
  } catch (error) {
    throw open.deadline.failure(provider, error);
  } finally {
    open.deadline.dispose();
  }
}
