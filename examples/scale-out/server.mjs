// One instance of a horizontally scaled MCP server: run as many as you like behind any HTTP balancer, all
// pointing at the same Redis, and they behave as one server. Configuration comes from the environment:
//
//   REDIS_URL            redis://127.0.0.1:6379 (default)
//   PORT, HOST           where to listen (default 3000 on 127.0.0.1; 0.0.0.0 in a container)
//   INSTANCE             a name shown by the `whoami` tool (default the process id)
//   REQUEST_STATE_KEYS   '{"current":{"id":"k2","secret":"..."},"previous":[{"id":"k1","secret":"..."}]}'
//                        the same on every instance; rotate by adding a new current and moving the old one
//   ALLOWED_HOSTS        comma-separated Host header values the balancer forwards (default the localhost names)
import { TasksExtension } from 'agentforge/extensions/tasks';
import {
  RedisEventBus,
  RedisEventStore,
  RedisOneTimeStateStore,
  RedisSessionStore,
  RedisTaskStore,
} from 'agentforge/redis';
import { McpServer } from 'agentforge/server';
import { Redis } from 'ioredis';

const env = process.env;
const name = env.INSTANCE ?? `pid-${process.pid}`;
if (!env.REQUEST_STATE_KEYS) console.error('[scale-out] REQUEST_STATE_KEYS unset: using a development key');
const keys = JSON.parse(
  env.REQUEST_STATE_KEYS ?? '{"current":{"id":"dev","secret":"development-only-key-change-me"}}',
);

// One client for the commands; the bus and the task store open their own subscriber connection from it.
// Fail fast while Redis is away: requests needing it get a clear error instead of waiting.
const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: 1,
  commandTimeout: 2000,
});
redis.on('error', (error) => console.error(`[${name}] redis: ${error.message}`));

const bus = new RedisEventBus({ redis });
const server = new McpServer(
  { name: 'scale-out-example', version: '1.0.0' },
  { eventBus: bus, requestState: { keys, oneTime: new RedisOneTimeStateStore({ redis }) } },
);
const tasks = new TasksExtension({ store: new RedisTaskStore({ redis }) });
server.use(tasks);

const text = (value) => ({ content: [{ type: 'text', text: value }] });
server.registerTool('whoami', { description: 'Which instance answered' }, () => text(name));
server.registerTool(
  'touch',
  {
    description: 'Marks a resource changed: every listen stream subscribed to it hears, on any instance',
    inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  },
  ({ uri }) => {
    server.notifyResourceUpdated(uri);
    return text(`${uri} updated by ${name}`);
  },
);
server.registerTool(
  'slow_report',
  {
    description: 'A long job run as a task: poll it through any instance',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 600 } } },
  },
  async ({ seconds = 5 }, ctx) => {
    await ctx.task?.detach();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return text(`report ready after ${seconds} s (ran on ${name})`);
  },
);
tasks.declare('slow_report');

// 2025-era sessions continue on any instance; 2024-11-05 HTTP+SSE POSTs are relayed to the stream's instance.
const sessionStore = new RedisSessionStore({ redis });
const listening = await server.listen({
  port: Number(env.PORT ?? 3000),
  host: env.HOST ?? '127.0.0.1',
  sessionStore,
  sessionRelay: sessionStore,
  eventStore: new RedisEventStore({ redis }),
  ...(env.ALLOWED_HOSTS ? { allowedHosts: env.ALLOWED_HOSTS.split(',') } : {}),
});
await bus.ready();
console.log(JSON.stringify({ instance: name, url: listening.url }));

async function stop() {
  await listening.close().catch(() => {});
  await bus.close();
  redis.disconnect();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
