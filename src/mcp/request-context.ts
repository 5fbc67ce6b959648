import type { JSONRPCNotification } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';

/**
 * What a transport hands the server with one 2026-07-28 request (basic/transports: one request in, one response
 * out): the message's transport facts, the signal that fires when the client cancels or goes away, and where
 * the request's own notifications (progress, log, subscription events) go while it is served.
 */
export interface StatelessRequestContext {
  extra?: MessageExtra;
  signal: AbortSignal;
  notify: (notification: JSONRPCNotification) => void;
}
