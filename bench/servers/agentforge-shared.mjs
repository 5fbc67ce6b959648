// The bench's agentforge server with its shared state in memory or in Redis (--backend=memory|redis,
// --redis-port=N): the listen bus, one-time requestState claims and the task store. Prints "LISTENING <port>".
// Tools: echo (no shared state), notify (publishes on the bus), greet (one MRTR round: a one-time state),
// work (a long task whose tasks/get reads the store).
import { TasksExtension } from '../../dist/extensions/tasks/index.js';
import { InMemoryOneTimeStateStore, McpServer } from '../../dist/server/index.js';
import { ECHO_TEXT } from '../lib/tools.mjs';

const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const redisBackend = arg('backend', 'memory') === 'redis';
const keys = { current: { id: 'bench', secret: 'agentforge-bench-key-0123456789' } };
let shared = {};
if (redisBackend) {
  const { RedisEventBus, RedisOneTimeStateStore, RedisTaskStore } = await import('../../dist/redis/index.js');
  const redis = { port: Number(arg('redis-port', '6379')), host: '127.0.0.1' };
  shared = {
    eventBus: new RedisEventBus({ redis }),
    oneTime: new RedisOneTimeStateStore({ redis }),
    store: new RedisTaskStore({ redis }),
  };
  await shared.eventBus.ready();
} else {
  shared = { oneTime: new InMemoryOneTimeStateStore() };
}
const server = new McpServer(
  { name: 'bench-shared', version: '1.0.0' },
  {
    ...(shared.eventBus ? { eventBus: shared.eventBus } : {}),
    requestState: { keys, oneTime: shared.oneTime },
  },
);
const tasks = new TasksExtension(shared.store ? { store: shared.store } : {});
server.use(tasks);
const text = (value) => ({ content: [{ type: 'text', text: value }] });
server.registerTool('echo', { inputSchema: { type: 'object' } }, () => text(ECHO_TEXT));
server.registerTool('notify', { inputSchema: { type: 'object' } }, () => {
  server.notifyResourceUpdated('file:///bench');
  return text('ok');
});
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
server.registerTool('greet', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
  const reply = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' });
  return text(`Hello, ${reply.content?.name}`);
});
server.registerTool('work', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
  await ctx.task?.detach();
  await new Promise((resolve) => setTimeout(resolve, 600_000).unref());
  return text('done');
});
tasks.declare('work', 'required');
const listening = await server.listen({ port: Number(arg('port', '0')), keepAliveMs: 0 });
process.stdout.write(`LISTENING ${new URL(listening.url).port}\n`);
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
