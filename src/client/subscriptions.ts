/**
 * One `subscribe()` over both eras. 2026-07-28 basic/patterns/subscriptions: a long-lived subscriptions/listen
 * request whose acknowledgement and notifications carry its id in `_meta`. Handshake era: list_changed
 * notifications arrive unasked (per capabilities) and resources/subscribe registers URIs; on HTTP they arrive
 * on the session's GET stream.
 */
import { LocalError, isLocalError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { MetaKey } from '../mcp/meta.js';
import type { SubscriptionFilter } from '../mcp/types.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { withTimeout } from '../util/abort.js';
import { type Deferred, deferred } from '../util/deferred.js';
import type { ServerState } from './era.js';
import type { Link } from './link.js';
import type { StatelessCodec } from './stateless.js';

export interface ServerNotification {
  method: string;
  params: Record<string, unknown> | undefined;
}

export type NotificationListener = (notification: ServerNotification) => void;

export interface Subscription {
  /** What the server agreed to deliver (a subset of what was asked). */
  readonly acknowledged: SubscriptionFilter;
  /** Settles when the subscription ends, for whatever reason. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface SubscriptionHost {
  link(): Link;
  codec(): StatelessCodec;
  state(): ServerState;
  ackTimeoutMs: number;
}

interface Active {
  filter: SubscriptionFilter;
  listener: NotificationListener;
  /** The listen request's id (modern) once sent. */
  id: RequestId | undefined;
  controller: AbortController;
  ack: Deferred<SubscriptionFilter> | undefined;
  acknowledged: SubscriptionFilter;
  ended: Deferred<void>;
  open: boolean;
  /** Consecutive re-listens after unexpected drops (bounded). */
  relistens: number;
}

const MAX_RELISTENS = 3;

const FILTER_OF: Record<string, keyof SubscriptionFilter> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

function wants(filter: SubscriptionFilter, notification: ServerNotification): boolean {
  const key = FILTER_OF[notification.method];
  if (key) return filter[key] === true;
  if (notification.method === 'notifications/resources/updated') {
    const uri = notification.params?.uri;
    return typeof uri === 'string' && (filter.resourceSubscriptions ?? []).includes(uri);
  }
  return false;
}

function isLinkFailure(error: unknown): boolean {
  return (
    isLocalError(error, 'connection_closed') ||
    isLocalError(error, 'process_exited') ||
    isLocalError(error, 'transport_error')
  );
}

export class SubscriptionManager {
  readonly #host: SubscriptionHost;
  readonly #active = new Set<Active>();

  constructor(host: SubscriptionHost) {
    this.#host = host;
  }

  async subscribe(filter: SubscriptionFilter, listener: NotificationListener): Promise<Subscription> {
    const active: Active = {
      filter,
      listener,
      id: undefined,
      controller: new AbortController(),
      ack: undefined,
      acknowledged: {},
      ended: deferred<void>(),
      open: true,
      relistens: 0,
    };
    this.#active.add(active);
    try {
      await this.#open(active);
    } catch (error) {
      this.#end(active);
      throw error;
    }
    return {
      get acknowledged() {
        return active.acknowledged;
      },
      closed: active.ended.promise,
      close: () => this.#close(active),
    };
  }

  /** Routes one server notification to the subscriptions that asked for it; true if any took it. */
  route(notification: ServerNotification): boolean {
    const meta = notification.params?._meta as Record<string, unknown> | undefined;
    const subscriptionId = meta?.[MetaKey.SubscriptionId];
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      for (const active of this.#active) {
        if (active.id !== undefined && active.id === subscriptionId) {
          active.ack?.resolve((notification.params?.notifications ?? {}) as SubscriptionFilter);
        }
      }
      return true;
    }
    let delivered = false;
    for (const active of this.#active) {
      const mine =
        subscriptionId === undefined ? wants(active.filter, notification) : active.id === subscriptionId;
      if (!mine || !active.open) continue;
      delivered = true;
      try {
        active.listener(notification);
      } catch {
        // A listener's failure is its own; the others still get the notification.
      }
    }
    return delivered;
  }

  /** After a restart: every open subscription is opened again on the new link. */
  async reopenAll(): Promise<void> {
    await Promise.all(
      [...this.#active]
        .filter((a) => a.open)
        .map((active) => this.#open(active).catch(() => this.#end(active))),
    );
  }

  /** The link is gone for good: every subscription ends. */
  endAll(): void {
    for (const active of [...this.#active]) this.#end(active);
  }

  async #open(active: Active): Promise<void> {
    const state = this.#host.state();
    if (state.era === 'stateless') return this.#listen(active);
    const link = this.#host.link();
    const uris = active.filter.resourceSubscriptions ?? [];
    const capabilities = state.capabilities;
    if (uris.length > 0 && capabilities.resources?.subscribe !== true) {
      throw new LocalError('protocol_error', 'the server does not support resource subscriptions');
    }
    for (const uri of uris) await link.connection.request('resources/subscribe', { uri });
    // Handshake-era HTTP delivers pushed notifications on the GET stream: wait until it is open, but not longer
    // than an acknowledgement may take (a server that never answers the GET must not hang subscribe).
    if (link.transport instanceof StreamableHttpClientTransport) {
      await withTimeout(link.transport.eventStreamReady(), this.#host.ackTimeoutMs, () => new Error()).catch(
        () => undefined,
      );
    }
    const acknowledged: SubscriptionFilter = {};
    if (active.filter.toolsListChanged && capabilities.tools?.listChanged)
      acknowledged.toolsListChanged = true;
    if (active.filter.promptsListChanged && capabilities.prompts?.listChanged)
      acknowledged.promptsListChanged = true;
    if (active.filter.resourcesListChanged && capabilities.resources?.listChanged)
      acknowledged.resourcesListChanged = true;
    if (uris.length > 0) acknowledged.resourceSubscriptions = [...uris];
    active.acknowledged = acknowledged;
  }

  async #listen(active: Active): Promise<void> {
    const link = this.#host.link();
    active.controller = new AbortController();
    active.ack = deferred<SubscriptionFilter>();
    const request = this.#host.codec().request(
      link.connection,
      'subscriptions/listen',
      { notifications: active.filter },
      {
        signal: active.controller.signal,
        timeoutMs: Number.POSITIVE_INFINITY,
      },
    );
    active.id = link.lastRequestId();
    // The response ends the subscription (graceful closure); an error before the ack fails the subscribe.
    request.then(
      () => this.#end(active),
      (error: unknown) => {
        const wasAcknowledged = active.ack === undefined;
        active.ack?.reject(error);
        if (isLocalError(error, 'cancelled') || !active.open) return;
        // A dead link may be restarted (reopenAll); the client ends what it cannot restart (endAll).
        if (isLinkFailure(error) && link.connection.closed) return;
        if (!isLinkFailure(error)) return this.#end(active);
        // The stream dropped but the server is there (HTTP): an unexpected disconnect, so listen again. A
        // re-listen that fails before its acknowledgement is retried by #relisten itself.
        if (wasAcknowledged) this.#relisten(active);
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new LocalError('timeout', 'subscriptions/listen was not acknowledged')),
        this.#host.ackTimeoutMs,
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

  #relisten(active: Active): void {
    if (active.relistens >= MAX_RELISTENS) {
      this.#end(active);
      return;
    }
    active.relistens++;
    setTimeout(
      () => {
        if (active.open) this.#listen(active).catch(() => this.#relisten(active));
      },
      250 * 2 ** active.relistens,
    ).unref();
  }

  async #close(active: Active): Promise<void> {
    if (!active.open) return;
    const state = this.#host.state();
    this.#end(active);
    if (state.era === 'stateless') {
      active.controller.abort(new LocalError('cancelled', 'subscription closed'));
      return;
    }
    const stillWanted = new Set([...this.#active].flatMap((a) => a.filter.resourceSubscriptions ?? []));
    const connection = this.#host.link().connection;
    for (const uri of active.filter.resourceSubscriptions ?? []) {
      if (!stillWanted.has(uri)) await connection.request('resources/unsubscribe', { uri }).catch(() => {});
    }
  }

  #end(active: Active): void {
    if (!active.open) return;
    active.open = false;
    this.#active.delete(active);
    active.ended.resolve();
  }
}
