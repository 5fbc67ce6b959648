/**
 * The EventBus over Redis pub/sub: every instance publishes its server's list_changed and resources/updated on
 * one channel and delivers what the others publish to its own listen streams and sessions. Local subscribers
 * are called at once (a Redis outage never silences this instance's own streams); the instance's own messages
 * coming back from Redis are recognised by its origin id and skipped. Pub/sub keeps no history: a listen
 * stream sees only events published after it was acknowledged, the no-replay rule of 2026-07-28
 * basic/patterns/subscriptions.
 */
import { randomUUID } from 'node:crypto';
import {
  type EventBus,
  type ServerEvent,
  type ServerEventListener,
  readServerEvent,
} from '../server/event-bus.js';
import { InMemoryEventBus } from '../server/event-bus.js';
import { type Logger, silentLogger } from '../util/logger.js';
import {
  type OwnedClient,
  type RedisBackendOptions,
  keyPrefix,
  parseStored,
  redisClient,
  release,
} from './connection.js';
import { RedisSubscriber } from './subscriber.js';

export interface RedisEventBusOptions extends RedisBackendOptions {
  logger?: Logger;
}

export class RedisEventBus implements EventBus {
  readonly #local = new InMemoryEventBus();
  readonly #redis: OwnedClient;
  readonly #subscriber: RedisSubscriber;
  readonly #channel: string;
  readonly #origin = randomUUID();
  readonly #logger: Logger;
  readonly #stop: () => void;

  constructor(options: RedisEventBusOptions = {}) {
    this.#logger = options.logger ?? silentLogger;
    this.#redis = redisClient(options.redis);
    this.#channel = `${keyPrefix(options)}events`;
    this.#subscriber = new RedisSubscriber(this.#redis.client, this.#logger);
    this.#stop = this.#subscriber.on(this.#channel, (message) => this.#received(message));
  }

  /** Resolves once this instance receives what other instances publish. */
  ready(): Promise<void> {
    return this.#subscriber.ready(this.#channel);
  }

  publish(event: ServerEvent): void {
    this.#local.publish(event);
    this.#redis.client
      .publish(this.#channel, JSON.stringify({ origin: this.#origin, event }))
      .catch((error: unknown) => this.#logger.warn('event not shared with other instances', error));
  }

  subscribe(listener: ServerEventListener): () => void {
    return this.#local.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#stop();
    await this.#subscriber.close();
    await release(this.#redis);
  }

  #received(message: string): void {
    const parsed = parseStored(message);
    if (typeof parsed !== 'object' || parsed === null) return;
    const { origin, event } = parsed as { origin?: unknown; event?: unknown };
    if (origin === this.#origin) return;
    const known = readServerEvent(event);
    if (known) this.#local.publish(known);
    else this.#logger.debug('ignored a malformed event from the bus channel');
  }
}
