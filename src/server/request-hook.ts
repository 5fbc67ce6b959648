/**
 * A hook around every request the server answers, in either era: tracing and metrics (agentforge/otel) sit
 * here. Absent, dispatch takes its plain path: no closure, no object per request.
 */
import type { LocalError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import type { Era } from '../mcp/revisions.js';
import type { JSONObject } from '../mcp/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/** One incoming request as the hook sees it, before its handler runs. */
export interface IncomingRequest {
  readonly method: string;
  readonly id: RequestId;
  /** The peer's params, unchecked. */
  readonly params: JSONObject | undefined;
  readonly era: Era;
  /** The revision the request is answered in (2026-07-28: its `_meta`; handshake: the session's, or ''). */
  readonly protocolVersion: string;
  /** What the transport tells of the request: HTTP headers, session id, auth info (none over stdio). */
  readonly extra: MessageExtra | undefined;
  /** The handshake-era session the request belongs to (none for a 2026-07-28 request: it has no session). */
  readonly session?: SessionEnd;
}

/** One request the server makes of the client on a handshake-era session (elicitation, sampling, roots). */
export interface OutgoingRequest {
  readonly method: string;
  readonly params: JSONObject;
  /** The session's revision. */
  readonly protocolVersion: string;
  /** What the transport told of the client request being served (HTTP headers, session id). */
  readonly extra: MessageExtra | undefined;
}

/**
 * Runs around one request to the client: calls `send` once, with the params to send (the same, or a copy with
 * more `_meta`), and returns (or rethrows) what it gives.
 */
export type OutgoingRequestHook = (
  request: OutgoingRequest,
  send: (params: JSONObject) => Promise<unknown>,
) => Promise<unknown>;

/** The end of a handshake-era session: `listener` runs once when it closes, with why it closed. */
export interface SessionEnd {
  onClose(listener: (reason: LocalError) => void): void;
}

/**
 * Runs around one request: calls `handle` once and returns (or rethrows) what it gives. A thrown error is
 * answered as a JSON-RPC error, as a handler's is.
 */
export type RequestHook = (
  request: IncomingRequest,
  handle: () => MaybePromise<JSONObject>,
) => MaybePromise<JSONObject>;
