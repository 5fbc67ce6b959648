import { LocalError } from '../../../jsonrpc/errors.js';

/**
 * An HTTP answer that carried no JSON-RPC message: a status the transport cannot turn into a response (a 404
 * from a legacy server, a 405, a 500 with an HTML page). Era detection reads `status` and `body`.
 */
export class HttpStatusError extends LocalError {
  readonly status: number;
  readonly body: string;
  /** The request carried an `Mcp-Session-Id` and got 404: the session is gone (2025-11-25 Session Management). */
  readonly sessionExpired: boolean;
  /** The id of the session that expired, when `sessionExpired`. */
  readonly expiredSessionId: string | undefined;

  constructor(status: number, body: string, options: { sessionExpired?: string; method?: string } = {}) {
    const what = options.method ? ` for ${options.method}` : '';
    const snippet = body.length > 200 ? `${body.slice(0, 200)}…` : body;
    super('transport_error', `HTTP ${status}${what}${snippet ? `: ${snippet}` : ''}`, {
      data: { status, body: snippet },
    });
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
    this.sessionExpired = options.sessionExpired !== undefined;
    this.expiredSessionId = options.sessionExpired;
  }
}

export function isHttpStatusError(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError;
}
