// One instance of a horizontally scaled agentforge gateway: run as many as you like behind any HTTP balancer,
// all pointing at the same Redis and the same mcp.json, and they behave as one gateway. Configuration comes
// from the environment:
//
//   MCP_CONFIG           the mcp.json to serve (default ./mcp.json); its upstreams must be reachable from every
//                        instance (HTTP servers; a stdio server is a process of each instance)
//   REDIS_URL            redis://127.0.0.1:6379 (default)
//   PORT, HOST           where to listen (default 3000 on 127.0.0.1; 0.0.0.0 in a container)
//   REQUEST_STATE_KEYS   '{"current":{"id":"g2","secret":"..."},"previous":[...]}', the same on every instance
//   ALLOWED_HOSTS        comma-separated Host header values the balancer forwards
import { loadConfig } from 'agentforge/agent';
import { createGateway, listenGateway } from 'agentforge/gateway';
import {
  RedisEventStore,
  RedisGatewayBus,
  RedisOneTimeStateStore,
  RedisRateLimitStore,
  RedisResponseCache,
  RedisSessionStore,
  RedisTaskRouteStore,
} from 'agentforge/redis';
import { Redis } from 'ioredis';

const env = process.env;
if (!env.REQUEST_STATE_KEYS) console.error('[gateway] REQUEST_STATE_KEYS unset: using a development key');
const keys = JSON.parse(
  env.REQUEST_STATE_KEYS ?? '{"current":{"id":"dev","secret":"development-only-key-change-me"}}',
);

// Fail fast while Redis is away: calls needing shared state get a clear error, the others go on.
const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: 1,
  commandTimeout: 2000,
});
redis.on('error', (error) => console.error(`[gateway] redis: ${error.message}`));

const bus = new RedisGatewayBus({ redis });
const sessionStore = new RedisSessionStore({ redis });
const gateway = await createGateway({
  config: await loadConfig(env.MCP_CONFIG ?? 'mcp.json'),
  // Rate-limit buckets, task routes, cached resources/read results, and MRTR retries forwarded to the instance
  // holding the upstream request.
  shared: {
    bus,
    rateLimits: new RedisRateLimitStore({ redis }),
    taskRoutes: new RedisTaskRouteStore({ redis }),
    responseCache: new RedisResponseCache({ redis }),
  },
  requestState: { keys, oneTime: new RedisOneTimeStateStore({ redis }) },
  rateLimits: { principal: { capacity: 60, refillPerSecond: 1 } },
});
const listening = await listenGateway(gateway, {
  port: Number(env.PORT ?? 3000),
  host: env.HOST ?? '127.0.0.1',
  sessionStore,
  sessionRelay: sessionStore,
  eventStore: new RedisEventStore({ redis }),
  ...(env.ALLOWED_HOSTS ? { allowedHosts: env.ALLOWED_HOSTS.split(',') } : {}),
});
await bus.ready();
console.log(JSON.stringify({ gateway: listening.url }));

async function stop() {
  await listening.close().catch(() => {});
  await gateway.close().catch(() => {});
  await bus.close();
  redis.disconnect();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
