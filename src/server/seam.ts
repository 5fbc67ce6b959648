/**
 * The server as its transports reach it (stdio's dual-era channel, the HTTP handler): route a message by its
 * shape, serve a 2026-07-28 request, open a handshake session, read a tool's inputSchema for header checks.
 * Kept off `McpServer`'s public surface: the server records its seam here when it is built, and only modules
 * inside agentforge look it up. One WeakMap read when a transport is set up; nothing per request.
 */
import type { HttpMcpServer } from '../transports/http/server/types.js';

export type ServerSeam = Required<HttpMcpServer>;

const seams = new WeakMap<object, ServerSeam>();

export function attachSeam(server: object, seam: ServerSeam): void {
  seams.set(server, seam);
}

/** The seam of an McpServer; undefined for any other object. */
export function seamOf(server: object): ServerSeam | undefined {
  return seams.get(server);
}
