/**
 * The client's request pipeline: every request the client sends runs through one `compose` (src/util/compose.ts)
 * of middleware, outermost first:
 *
 *   input loop (MRTR rounds)  >  user middleware (`ClientOptions.middleware`)  >  session renewal  >
 *   retry after a link failure (waits out a restart)  >  the era codec's `send`
 *
 * User middleware therefore sees every round trip of a logical request (each MRTR round) and can resend: a
 * middleware may call `next` again once a call settled (an OAuth layer retrying after a 401 with a new token).
 * The requests the client makes while connecting (server/discover, initialize, notifications/initialized,
 * logging/setLevel, and initialize again when a session is renewed) run through the user middleware as well,
 * with `connecting: true`; an `HttpStatusError` thrown there reaches the middleware before negotiation reads it.
 */
import { LocalError } from '../mcp/local-errors.js';
import { HttpStatusError } from '../transports/http/client/errors.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { isLinkFailure, unwrapError } from './failures.js';
import type { ClientMiddleware, ClientRequestContext, PipelineHost } from './contracts.js';

function retryable(context: ClientRequestContext): boolean {
  return (context.idempotent || context.options.retry === true) && !context.options.signal?.aborted;
}

function hasSession(context: ClientRequestContext): boolean {
  const transport = context.link.transport;
  return transport instanceof StreamableHttpClientTransport && transport.mode === 'session';
}

/**
 * Whether `sessionRenewal` and `retryAfterLinkFailure` both hand `context` straight to the send, adding nothing:
 * then, with no user middleware between, the input loop may finish the result in the connection (onresult).
 */
export function passesThrough(context: ClientRequestContext): boolean {
  return !retryable(context) && !hasSession(context);
}

/**
 * 2025-11-25 Session Management: a 404 on our session means a new initialize without the old id; a read is
 * then sent again on the new session, anything else fails with `connection_closed` (it may have had effects).
 * Only a link with a session can see it, so only such a link pays for the handler.
 */
export function sessionRenewal(host: PipelineHost): ClientMiddleware {
  return (context, next) => {
    if (!hasSession(context)) return next(context);
    return next(context).catch(async (caught: unknown) => {
      const error = unwrapError(caught);
      if (!(error instanceof HttpStatusError) || !error.sessionExpired) throw error;
      await host.renewSession(context.link, error.expiredSessionId);
      if (retryable(context)) return next({ ...context, link: await host.ready(), codec: host.codec });
      throw new LocalError(
        'connection_closed',
        `the server ended the session during ${context.method}; a new session was started`,
        { cause: error },
      );
    });
  };
}

/**
 * Idempotent requests (and tools/call when the caller opted in) are sent once more after a link failure, on the
 * restarted link once the restart with backoff is over, or on the same link if it is still open.
 */
export function retryAfterLinkFailure(host: PipelineHost): ClientMiddleware {
  return (context, next) => {
    if (!retryable(context)) return next(context);
    return next(context).catch(async (error: unknown) => {
      if (!retryable(context) || !isLinkFailure(error) || host.closed) throw error;
      const link = await host.ready().catch(() => undefined);
      if (!link || (link === context.link && context.link.connection.closed)) throw error;
      return next({ ...context, link, codec: host.codec });
    });
  };
}
