import { classify } from '../../../jsonrpc/messages.js';
import { isRecord } from '../../../util/record.js';
import { refuseUnauthorized } from './auth.js';
import type { HttpExchange } from './exchange.js';
import { type HandlerContext, readJsonBody, reject, rejectInvalid } from './context.js';
import { LegacySseTransport } from './legacy-sse.js';
import type { ResolvedOptions } from './options.js';
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
  const principal = exchange.principal;
  const stopRelay = await options.sessionRelay
    ?.receive(sessionId, (text) => receiveRelayed(options, transport, principal, sessionId, text))
    .catch((error: unknown) => {
      options.logger.warn(`session ${sessionId}: relayed messages will not reach this stream`, error);
      return undefined;
    });
  if (transport.closed) {
    stopRelay?.();
    sessions.release();
    await handle.close();
    return;
  }
  transport.onended = () => {
    stopRelay?.();
    sessions.delete(sessionId);
  };
  sessions.add(sessionId, { transport, handle, principal });
  transport.announce(`${options.messagesPath}?sessionId=${encodeURIComponent(sessionId)}`);
}

/** 2024-11-05: a client message POSTed to the announced URL; answers go out on the session's stream. */
export async function postLegacySse(context: HandlerContext, exchange: HttpExchange): Promise<void> {
  const sessionId = exchange.query('sessionId');
  if (sessionId === undefined)
    return reject(exchange, 400, 'Bad Request: sessionId query parameter is required');
  const entry = context.sessions.get(sessionId, LegacySseTransport, exchange.principal);
  const relay = context.options.sessionRelay;
  if (!entry && !relay) return reject(exchange, 404, 'Not Found: unknown or terminated session');
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
  if (entry) {
    entry.transport.deliver(classified.message, exchange.extra(sessionId));
    return exchange.respond(202, undefined);
  }
  // Another instance holds the stream (the balancer sent this POST elsewhere): the message goes there.
  let delivered: boolean;
  try {
    delivered = await relay!.relay(sessionId, relayed(exchange, classified.message));
  } catch (error) {
    context.options.logger.warn(`session ${sessionId}: message not relayed`, error);
    return reject(exchange, 503, 'Service Unavailable: the session relay cannot be reached');
  }
  if (!delivered) return reject(exchange, 404, 'Not Found: unknown or terminated session');
  exchange.respond(202, undefined);
}

/**
 * What a relayed message carries: the message, and who sent it (the instance holding the stream serves only
 * its session's principal). The bearer token itself stays on the instance that verified it.
 */
function relayed(exchange: HttpExchange, message: object): string {
  const { token: _, ...authInfo } = isRecord(exchange.authInfo) ? exchange.authInfo : {};
  return JSON.stringify({
    principal: exchange.principal ?? null,
    ...(isRecord(exchange.authInfo) ? { authInfo } : {}),
    message,
  });
}

function receiveRelayed(
  options: ResolvedOptions,
  transport: LegacySseTransport,
  principal: string | undefined,
  sessionId: string,
  text: string,
): void {
  if (transport.closed || text.length > options.maxBodyBytes + 64 * 1024) return;
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return;
  }
  // Session Hijacking: a message for this session from anyone but its principal is dropped.
  if (!isRecord(envelope) || envelope.principal !== (principal ?? null)) return;
  const classified = classify(envelope.message);
  if (classified.kind === 'invalid') return;
  const extra = isRecord(envelope.authInfo) ? { sessionId, authInfo: envelope.authInfo } : { sessionId };
  transport.deliver(classified.message, extra);
}
