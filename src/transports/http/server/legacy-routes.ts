import { classify } from '../../../jsonrpc/messages.js';
import { refuseUnauthorized } from './auth.js';
import type { HttpExchange } from './exchange.js';
import { type HandlerContext, readJsonBody, reject, rejectInvalid } from './context.js';
import { LegacySseTransport } from './legacy-sse.js';
import { mintSessionId } from './sessions.js';
import { parseAccept } from './wire.js';

/** 2024-11-05 basic/transports: HTTP with SSE — GET opens the session's stream, first event `endpoint`. */
export async function openLegacySse(context: HandlerContext, exchange: HttpExchange): Promise<void> {
  const { sessions, server, options } = context;
  if (!parseAccept(exchange.header('accept')).sse)
    return reject(exchange, 406, 'Not Acceptable: accept text/event-stream');
  if (!sessions.reserve()) return reject(exchange, 503, 'Service Unavailable: too many sessions');
  const sessionId = mintSessionId();
  const sink = exchange.openSse(undefined);
  const transport = new LegacySseTransport(sessionId, sink, options.keepAliveMs);
  let handle: Awaited<ReturnType<HandlerContext['server']['connect']>>;
  try {
    handle = await server.connect(transport);
  } catch (error) {
    sessions.release();
    await transport.close();
    throw error;
  }
  if (transport.closed) {
    // The client left while the session was being set up.
    sessions.release();
    await handle.close();
    return;
  }
  transport.onended = () => sessions.delete(sessionId);
  sessions.add(sessionId, { transport, handle, principal: exchange.principal });
  transport.announce(`${options.messagesPath}?sessionId=${encodeURIComponent(sessionId)}`);
}

/** 2024-11-05: a client message POSTed to the announced URL; answers go out on the session's stream. */
export async function postLegacySse(context: HandlerContext, exchange: HttpExchange): Promise<void> {
  const sessionId = exchange.query('sessionId');
  if (sessionId === undefined)
    return reject(exchange, 400, 'Bad Request: sessionId query parameter is required');
  const entry = context.sessions.get(sessionId, LegacySseTransport, exchange.principal);
  if (!entry) return reject(exchange, 404, 'Not Found: unknown or terminated session');
  const body = await readJsonBody(exchange, context.options);
  if (!body) return;
  if (Array.isArray(body.value)) {
    return reject(
      exchange,
      400,
      'Invalid Request: JSON-RPC batches are not supported in this protocol revision',
    );
  }
  const classified = classify(body.value);
  if (classified.kind === 'invalid') return rejectInvalid(exchange, classified);
  if (refuseUnauthorized(context.options.auth, exchange, [classified.message], context.toolScopes)) return;
  entry.transport.deliver(classified.message, exchange.extra(sessionId));
  exchange.respond(202, undefined);
}
