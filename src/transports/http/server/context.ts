import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { InvalidMessage, RequestId } from '../../../jsonrpc/messages.js';
import type { BodyResult, HttpExchange } from './exchange.js';
import type { ResolvedOptions } from './options.js';
import { parseBody } from './parse.js';
import type { SessionRegistry } from './sessions.js';
import type { SharedSessions } from './shared-sessions.js';
import type { HttpMcpServer } from './types.js';
import type { ParamHeaderLookup } from './validate.js';
import { errorResponse, isJsonContentType } from './wire.js';

export interface HandlerContext {
  readonly server: HttpMcpServer;
  readonly options: ResolvedOptions;
  readonly sessions: SessionRegistry;
  /** Present when sessions are shared between instances (options.sessionStore). */
  readonly shared: SharedSessions | undefined;
  readonly paramHeaders: ParamHeaderLookup;
  readonly toolScopes: ((name: string) => readonly string[] | undefined) | undefined;
}

/** Answers with a JSON-RPC error body (no id unless given) and the HTTP status that carries it. */
export function reject(
  exchange: HttpExchange,
  status: number,
  message: string,
  code: number = ErrorCode.InvalidRequest,
  id?: RequestId | null,
  headers?: Record<string, string>,
): void {
  exchange.respond(status, headers, JSON.stringify(errorResponse(id, code, message)));
}

/** Answers a message `classify` found invalid: 400 and -32600 with the reason, echoing its id when readable. */
export function rejectInvalid(exchange: HttpExchange, invalid: InvalidMessage): void {
  reject(exchange, 400, `Invalid Request: ${invalid.reason}`, ErrorCode.InvalidRequest, invalid.id);
}

/** What readJsonBody gives: the parsed body, or undefined after the error answer was sent. */
export type JsonBody = { readonly value: unknown } | undefined;

/**
 * The parsed JSON body of a POST, or undefined after the error answer was sent; at once (no promise) when the
 * edge already holds the whole body.
 */
export function readJsonBody(exchange: HttpExchange, options: ResolvedOptions): JsonBody | Promise<JsonBody> {
  if (!isJsonContentType(exchange.header('content-type'))) {
    reject(exchange, 415, 'Unsupported Media Type: Content-Type must be application/json');
    return undefined;
  }
  const body = exchange.readBody(options.bodyLimits);
  if (body instanceof Promise) return body.then((read) => parsedJson(exchange, read, options));
  return parsedJson(exchange, body, options);
}

function parsedJson(exchange: HttpExchange, body: BodyResult, options: ResolvedOptions): JsonBody {
  if (!body.ok) {
    rejectBody(exchange, body.reason, options);
    return undefined;
  }
  const parsed = parseBody(body.text);
  if (!parsed.ok) {
    reject(exchange, 400, parsed.message, parsed.code, null);
    return undefined;
  }
  return { value: parsed.value };
}

function rejectBody(
  exchange: HttpExchange,
  reason: 'too_large' | 'aborted' | 'timeout' | 'invalid_utf8',
  options: ResolvedOptions,
): void {
  if (reason === 'too_large') {
    reject(exchange, 413, `Payload Too Large: the limit is ${options.maxBodyBytes} bytes`);
  } else if (reason === 'timeout') {
    reject(exchange, 408, `Request Timeout: the body did not arrive within ${options.bodyTimeoutMs} ms`);
  } else if (reason === 'invalid_utf8') {
    // RFC 8259 section 8.1: JSON exchanged between systems is UTF-8; anything else is not JSON text.
    reject(exchange, 400, 'Parse error: the body is not valid UTF-8', ErrorCode.ParseError, null);
  } else {
    reject(exchange, 400, 'Bad Request: the request body was cut short');
  }
}
