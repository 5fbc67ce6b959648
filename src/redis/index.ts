/**
 * agentforge/redis: the state several instances of an agentforge server share, on Redis (ioredis, an optional
 * peer dependency). Give every instance the same Redis and prefix:
 *
 * ```ts
 * const redis = new Redis(process.env.REDIS_URL);
 * const server = new McpServer(info, {
 *   eventBus: new RedisEventBus({ redis }),
 *   requestState: { keys: ring, oneTime: new RedisOneTimeStateStore({ redis }) },
 * });
 * server.use(new TasksExtension({ store: new RedisTaskStore({ redis }) }));
 * const sessionStore = new RedisSessionStore({ redis }); // also relays HTTP+SSE POSTs (sessionRelay)
 * await server.listen({ sessionStore, sessionRelay: sessionStore, eventStore: new RedisEventStore({ redis }) });
 * ```
 * The gateway (agentforge/gateway) shares its own state the same way: `createGateway({ shared: { bus: new
 * RedisGatewayBus({ redis }), rateLimits: new RedisRateLimitStore({ redis }), taskRoutes: new
 * RedisTaskRouteStore({ redis }), responseCache: new RedisResponseCache({ redis }) } })`.
 *
 * A Cluster or a Sentinel-managed Redis is the client the user builds (`new Cluster(...)`,
 * `new Redis({ sentinels, name })`); the backends take it as it is.
 */
export {
  type RedisBackendOptions,
  type RedisClient,
  type RedisConnection,
  SharedStateError,
  SharedStateUnavailableError,
} from './connection.js';
export { RedisEventBus, type RedisEventBusOptions } from './event-bus.js';
export {
  RedisGatewayBus,
  type RedisGatewayBusOptions,
  RedisRateLimitStore,
  RedisTaskRouteStore,
} from './gateway.js';
export { RedisOneTimeStateStore } from './one-time-state.js';
export { RedisEventStore, RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
export { RedisResponseCache, type RedisResponseCacheOptions } from './response-cache.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './task-store.js';
