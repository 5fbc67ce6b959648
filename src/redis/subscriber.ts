/**
 * One subscriber connection per backend, shared by every channel it listens to. After a reconnect (a Redis
 * restart, a failover) every channel is subscribed again, so a listen stream's subscription outlives it. Done
 * here rather than by ioredis's `autoResubscribe`, whose re-subscription is a promise nobody handles: closing
 * the backend while Redis is still away would surface it as an unhandled rejection.
 */
import { Cluster, type RedisOptions } from 'ioredis';
import type { Logger } from '../util/logger.js';
import { type RedisClient, closeClient } from './connection.js';

export type ChannelHandler = (message: string) => void;

export class RedisSubscriber {
  readonly #connection: RedisClient;
  readonly #channels = new Map<string, Set<ChannelHandler>>();
  /** SUBSCRIBE replies still on their way, by channel: a caller can wait until a channel is live. */
  readonly #pending = new Map<string, Promise<unknown>>();
  readonly #logger: Logger;

  constructor(source: RedisClient, logger: Logger) {
    this.#logger = logger;
    // Pub/sub needs a connection of its own, made like the source (standalone, Sentinel or Cluster); it keeps
    // an offline queue so a subscription asked for while Redis is down is made when it comes back.
    // No command timeout: a SUBSCRIBE waits for Redis to come back (ioredis times out even at 0).
    const options: RedisOptions = {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
      autoResubscribe: false,
    };
    this.#connection =
      source instanceof Cluster
        ? source.duplicate(undefined, { redisOptions: options })
        : source.duplicate(options);
    this.#connection.on('message', (channel: string, message: string) => {
      const handlers = this.#channels.get(channel);
      if (!handlers) return;
      for (const handler of [...handlers]) {
        try {
          handler(message);
        } catch (error) {
          this.#logger.warn(`redis channel ${channel}: handler failed`, error);
        }
      }
    });
    this.#connection.on('error', (error: unknown) => this.#logger.debug('redis subscriber', error));
    // The first `ready` sends what was asked for before it (the offline queue); each later one follows a
    // reconnect, on which the server has forgotten this connection's channels.
    let connectedBefore = false;
    this.#connection.on('ready', () => {
      if (connectedBefore) this.#resubscribe();
      connectedBefore = true;
    });
  }

  #resubscribe(): void {
    const channels = [...this.#channels.keys()];
    if (channels.length === 0) return;
    this.#connection
      .subscribe(...channels)
      .catch((error: unknown) => this.#logger.warn('redis channels not subscribed again', error));
  }

  get channelCount(): number {
    return this.#channels.size;
  }

  /** Calls `handler` for each message on `channel` until the returned function is called. */
  on(channel: string, handler: ChannelHandler): () => void {
    let handlers = this.#channels.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.#channels.set(channel, handlers);
      const subscribing = this.#connection
        .subscribe(channel)
        .catch((error: unknown) => this.#logger.warn(`redis channel ${channel}: not subscribed`, error))
        .finally(() => {
          if (this.#pending.get(channel) === subscribing) this.#pending.delete(channel);
        });
      this.#pending.set(channel, subscribing);
    }
    handlers.add(handler);
    const set = handlers;
    return () => {
      set.delete(handler);
      if (set.size > 0 || this.#channels.get(channel) !== set) return;
      this.#channels.delete(channel);
      this.#connection.unsubscribe(channel).catch(() => {});
    };
  }

  /** Resolves once the SUBSCRIBE for `channel` (if any is under way) was answered. */
  async ready(channel: string): Promise<void> {
    await this.#pending.get(channel);
  }

  async close(): Promise<void> {
    this.#channels.clear();
    await closeClient(this.#connection);
  }
}
