/**
 * The stateless era's subscriptions (2026-07-28 basic/patterns/subscriptions): one long-lived
 * subscriptions/listen request per subscription, whose acknowledgement and notifications carry its id in
 * `_meta`. The response ends the subscription; a stream that drops while the server is there is listened again.
 */
import { LocalError, isLocalError } from '../jsonrpc/errors.js';
import { Method } from '../mcp/methods.js';
import type { SubscriptionFilter } from '../mcp/types.js';
import { deferred } from '../util/deferred.js';
import type { ActiveSubscription, SubscriptionWire, WireHost } from './contracts.js';

const MAX_RELISTENS = 3;

/** The listen stream broke (an HTTP status included: the stream, not the request, failed). */
function isLinkFailure(error: unknown): boolean {
  return (
    isLocalError(error, 'connection_closed') ||
    isLocalError(error, 'process_exited') ||
    isLocalError(error, 'transport_error')
  );
}

export const listenWire: SubscriptionWire = {
  open: (active, host) => listen(active, host),
  async close(active) {
    active.controller.abort(new LocalError('cancelled', 'subscription closed'));
  },
};

async function listen(active: ActiveSubscription, host: WireHost): Promise<void> {
  const link = host.link();
  active.controller = new AbortController();
  active.ack = deferred<SubscriptionFilter>();
  active.id = undefined;
  const request = host.send(
    Method.SubscriptionsListen,
    { notifications: active.filter },
    {
      signal: active.controller.signal,
      timeoutMs: Number.POSITIVE_INFINITY,
      ...(active.clientCapabilities ? { clientCapabilities: active.clientCapabilities } : {}),
    },
    // The id this listen went out with, which its acknowledgement and notifications name.
    (id) => {
      active.id = id;
    },
  );
  // The response ends the subscription (graceful closure); an error before the ack fails the subscribe.
  request.then(
    () => host.end(active),
    (error: unknown) => {
      const wasAcknowledged = active.ack === undefined;
      active.ack?.reject(error);
      if (isLocalError(error, 'cancelled') || !active.open) return;
      // A dead link may be restarted (reopenAll); the client ends what it cannot restart (endAll).
      if (isLinkFailure(error) && link.connection.closed) return;
      if (!isLinkFailure(error)) return host.end(active);
      // The stream dropped but the server is there (HTTP): an unexpected disconnect, so listen again. A
      // re-listen that fails before its acknowledgement is retried by relisten itself.
      if (wasAcknowledged) relisten(active, host);
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LocalError('timeout', 'subscriptions/listen was not acknowledged')),
      host.ackTimeoutMs,
    );
  });
  try {
    active.acknowledged = await Promise.race([active.ack.promise, timeout]);
    active.ack = undefined;
    active.relistens = 0;
  } catch (error) {
    active.controller.abort();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function relisten(active: ActiveSubscription, host: WireHost): void {
  if (active.relistens >= MAX_RELISTENS) {
    host.end(active);
    return;
  }
  active.relistens++;
  setTimeout(
    () => {
      if (active.open) listen(active, host).catch(() => relisten(active, host));
    },
    250 * 2 ** active.relistens,
  ).unref();
}
