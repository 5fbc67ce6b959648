import type { JSONRPCRequest, JSONRPCResponse } from '../../../jsonrpc/messages.js';
import type { Transport } from '../../../jsonrpc/transport.js';
import type { StatelessRequestContext } from '../../../mcp/request-context.js';

/** What `connect` returns: a handle on one handshake-era session. */
export interface ServerSessionHandle {
  close(): Promise<void>;
  readonly sessionId?: string;
}

/**
 * The server as the HTTP layer sees it (the seam with src/server, typed structurally so the transport layer does
 * not import the server core). McpServer hands the transport its internal seam, which satisfies it.
 */
export interface HttpMcpServer {
  /** 2026-07-28: one request in, one response out; request-scoped notifications go to `notify` meanwhile. */
  handleStatelessRequest(
    request: JSONRPCRequest,
    context: StatelessRequestContext,
  ): JSONRPCResponse | Promise<JSONRPCResponse>;
  /** Handshake era: binds a session to a transport. */
  connect(transport: Transport): Promise<ServerSessionHandle>;
  /** True when the request carries per-request `_meta` (2026-07-28) or is `server/discover`. */
  isStatelessRequest(message: JSONRPCRequest): boolean;
  /**
   * The registered tool's inputSchema (the same object each call), for `Mcp-Param-*` validation; undefined when
   * there is no such tool.
   */
  toolInputSchema?(name: string): unknown;
  /** The OAuth scopes the registered tool declares (checked by the auth guard before a tools/call is delivered). */
  toolRequiredScopes?(name: string): readonly string[] | undefined;
}

/** Reads one request header by its lowercase name; undefined when absent. */
export type HeaderReader = (name: string) => string | undefined;
