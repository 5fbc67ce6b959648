/**
 * One `subscribe()` over both eras: the bookkeeping (what is open, who gets which notification, reopening after
 * a restart) lives here; how a subscription travels is the era codec's `subscriptions` wire (subscriptions/listen
 * in src/client/listen.ts, resources/subscribe plus pushed notifications in src/client/handshake.ts).
 */
import { MetaKey } from '../mcp/meta.js';
import { Notification } from '../mcp/methods.js';
import type { ClientCapabilities, SubscriptionFilter } from '../mcp/types.js';
import { deferred } from '../util/deferred.js';
import type {
  ActiveSubscription,
  NotificationListener,
  ServerNotification,
  SubscriptionHost,
  WireHost,
} from './contracts.js';

export interface Subscription {
  /** What the server agreed to deliver (a subset of what was asked). */
  readonly acknowledged: SubscriptionFilter;
  /** Settles when the subscription ends, for whatever reason. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /**
   * The capabilities the 2026-07-28 listen declares instead of the client's: an extension's own filter fields
   * (tasks: `taskIds`) need the extension declared. A handshake session declared its own at initialize.
   */
  readonly clientCapabilities?: ClientCapabilities;
}

const FILTER_OF: Record<string, keyof SubscriptionFilter> = {
  [Notification.ToolsListChanged]: 'toolsListChanged',
  [Notification.PromptsListChanged]: 'promptsListChanged',
  [Notification.ResourcesListChanged]: 'resourcesListChanged',
};

function wants(filter: SubscriptionFilter, notification: ServerNotification): boolean {
  const key = FILTER_OF[notification.method];
  if (key) return filter[key] === true;
  if (notification.method === Notification.ResourceUpdated) {
    const uri = notification.params?.uri;
    return typeof uri === 'string' && (filter.resourceSubscriptions ?? []).includes(uri);
  }
  return false;
}

export class SubscriptionManager {
  readonly #host: SubscriptionHost;
  readonly #active = new Set<ActiveSubscription>();
  readonly #wireHost: WireHost;

  constructor(host: SubscriptionHost) {
    this.#host = host;
    this.#wireHost = {
      link: () => host.link(),
      codec: () => host.codec(),
      state: () => host.state(),
      ackTimeoutMs: host.ackTimeoutMs,
      send: (method, params, options, sent) => host.send(method, params, options, sent),
      end: (active) => this.#end(active),
      stillWanted: () => new Set([...this.#active].flatMap((a) => a.filter.resourceSubscriptions ?? [])),
    };
  }

  async subscribe(
    filter: SubscriptionFilter,
    listener: NotificationListener,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    const active: ActiveSubscription = {
      ...(options.clientCapabilities ? { clientCapabilities: options.clientCapabilities } : {}),
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
    if (notification.method === Notification.SubscriptionsAcknowledged) {
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

  #open(active: ActiveSubscription): Promise<void> {
    return this.#host.codec().subscriptions.open(active, this.#wireHost);
  }

  async #close(active: ActiveSubscription): Promise<void> {
    if (!active.open) return;
    const wire = this.#host.codec().subscriptions;
    this.#end(active);
    await wire.close(active, this.#wireHost);
  }

  #end(active: ActiveSubscription): void {
    if (!active.open) return;
    active.open = false;
    this.#active.delete(active);
    active.ended.resolve();
  }
}
