import type { IncomingMessage } from 'node:http';
import { LocalError } from '../../../jsonrpc/errors.js';
import { clip } from '../../../util/clip.js';

/**
 * The response headers an HTTP error carries for the layers above: `www-authenticate` (an OAuth challenge,
 * RFC 6750 §3 / RFC 9728 §5.1) and `dpop-nonce` (RFC 9449 §9). Nothing else is kept.
 */
export interface HttpErrorHeaders {
  readonly 'www-authenticate'?: string;
  readonly 'dpop-nonce'?: string;
}

/** Caps a header copied into an error: a hostile server does not get to fill memory through it. */
const HEADER_CAP = 8 * 1024;

/** How much of an error response's body is read: enough for a JSON-RPC error or a message, no more. */
export const ERROR_BODY_CAP = 64 * 1024;

export function errorHeadersOf(response: IncomingMessage): HttpErrorHeaders {
  const headers: { 'www-authenticate'?: string; 'dpop-nonce'?: string } = {};
  for (const name of ['www-authenticate', 'dpop-nonce'] as const) {
    const raw = response.headers[name];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (typeof value === 'string' && value.length <= HEADER_CAP) headers[name] = value;
  }
  return headers;
}

/**
 * An HTTP answer that carried no JSON-RPC message: a status the transport cannot turn into a response (a 404
 * from a legacy server, a 405, a 500 with an HTML page, a 401 challenge). Era detection reads `status` and
 * `body`; authorization reads `headers`.
 */
export class HttpStatusError extends LocalError {
  readonly status: number;
  readonly body: string;
  /** `www-authenticate` and `dpop-nonce`, when the response had them. */
  readonly headers: HttpErrorHeaders;
  /** The request carried an `Mcp-Session-Id` and got 404: the session is gone (2025-11-25 Session Management). */
  readonly sessionExpired: boolean;
  /** The id of the session that expired, when `sessionExpired`. */
  readonly expiredSessionId: string | undefined;

  constructor(
    status: number,
    body: string,
    options: { sessionExpired?: string; method?: string; headers?: HttpErrorHeaders } = {},
  ) {
    const what = options.method ? ` for ${options.method}` : '';
    const snippet = clip(body);
    super('transport_error', `HTTP ${status}${what}${snippet ? `: ${snippet}` : ''}`, {
      data: { status, body: snippet },
    });
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
    this.headers = options.headers ?? {};
    this.sessionExpired = options.sessionExpired !== undefined;
    this.expiredSessionId = options.sessionExpired;
  }
}

export function isHttpStatusError(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError;
}
