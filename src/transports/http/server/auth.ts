import type { JSONRPCRequest } from '../../../jsonrpc/messages.js';
import { Method } from '../../../mcp/methods.js';
import type { HttpExchange } from './exchange.js';
import type { HeaderReader } from './types.js';

/** What an auth guard sees of an HTTP request: it runs before the body is read (an anonymous peer costs no buffer). */
export interface HttpAuthRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly header: HeaderReader;
}

/** A complete answer the guard decided on (a challenge, a refusal, a metadata document). */
export interface HttpAuthResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text. */
  readonly body?: string;
}

export type HttpAuthOutcome =
  | {
      readonly ok: true;
      /** Handed to handlers as `extra.authInfo`. */
      readonly authInfo: unknown;
      /** Who the caller is, stable across tokens: handshake-era sessions are bound to it. */
      readonly principal: string | undefined;
    }
  | { readonly ok: false; readonly response: HttpAuthResponse };

/**
 * The HTTP transport's seam with a resource-server implementation (agentforge/auth/server's `bearerAuth`, or
 * your own). Typed structurally so the transport knows nothing of OAuth: it asks for documents to serve, for an
 * authentication of every other request, and for an authorization of each tool call.
 */
export interface HttpAuthGuard {
  /** A document the guard serves itself (RFC 9728 metadata), or undefined to route the request as usual. */
  serve?(request: HttpAuthRequest): HttpAuthResponse | undefined;
  authenticate(request: HttpAuthRequest): Promise<HttpAuthOutcome>;
  /** The refusal (403 insufficient_scope) when `authInfo` lacks some of `scopes`; undefined when allowed. */
  authorize(authInfo: unknown, scopes: readonly string[]): HttpAuthResponse | undefined;
}

/**
 * Request headers that carry credentials: once the guard has consumed them they are left out of the headers
 * handlers see, so a handler cannot forward the caller's token upstream (2026-07-28 basic/authorization:
 * Token Passthrough).
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'dpop']);

export function withoutCredentials(headers: Headers): Headers {
  const copy = new Headers(headers);
  for (const name of CREDENTIAL_HEADERS) copy.delete(name);
  return copy;
}

export function respondWith(exchange: HttpExchange, response: HttpAuthResponse): void {
  exchange.respond(response.status, { ...response.headers }, response.body);
}

/** The scopes a JSON-RPC request needs beyond those of the endpoint: a tools/call of a tool that declares some. */
export function requiredScopesOf(
  request: JSONRPCRequest,
  toolScopes: ((name: string) => readonly string[] | undefined) | undefined,
): readonly string[] | undefined {
  if (!toolScopes || request.method !== Method.ToolsCall) return undefined;
  const name = request.params?.name;
  return typeof name === 'string' ? toolScopes(name) : undefined;
}

/**
 * Checks every request of a POST against its tool's scopes; on a shortfall answers 403 (with the challenge the
 * guard built) and returns true, so nothing of the POST is delivered.
 */
export function refuseUnauthorized(
  guard: HttpAuthGuard | undefined,
  exchange: HttpExchange,
  messages: readonly object[],
  toolScopes: ((name: string) => readonly string[] | undefined) | undefined,
): boolean {
  if (!guard || !toolScopes) return false;
  for (const message of messages) {
    if (!('method' in message) || !('id' in message)) continue;
    const scopes = requiredScopesOf(message as JSONRPCRequest, toolScopes);
    if (!scopes || scopes.length === 0) continue;
    const refusal = guard.authorize(exchange.authInfo, scopes);
    if (refusal) {
      respondWith(exchange, refusal);
      return true;
    }
  }
  return false;
}
