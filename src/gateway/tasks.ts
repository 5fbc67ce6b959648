/**
 * Tasks (SEP-2663, `io.modelcontextprotocol/tasks`) through the gateway. A caller that declares the extension
 * has it declared upstream too (its capabilities travel with the call), so an upstream may answer tools/call
 * with a CreateTaskResult; the gateway passes it on under a task id of its own (`server__id`: two upstreams'
 * ids never clash) and remembers which upstream, and for whom, the task runs. tasks/get, tasks/update and
 * tasks/cancel then go to that upstream with its own id, for that principal only: an unknown task and someone
 * else's look the same.
 */
import type { McpHost } from '../agent/host.js';
import type { McpClient } from '../client/client.js';
import type { Subscription } from '../client/subscriptions.js';
import { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode, invalidParams } from '../mcp/errors.js';
import type { JSONObject } from '../mcp/types.js';
import { DerivedScope, type RequestScope } from '../server/context.js';
import {
  type ListenAttachment,
  type ListenRequest,
  type ServerExtension,
  declaresExtension,
} from '../server/extension.js';
import { Notification } from '../mcp/methods.js';
import type { SubscriptionFilter } from '../mcp/types.js';
import type { HandlerContext, TaskContext } from '../server/types.js';
import { isRecord } from '../util/record.js';
import type { StoredTaskRoute, TaskRouteStore } from './shared-state.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
/** Task ids one listen may ask for (as the tasks extension's own server allows). */
const MAX_LISTENED_TASKS = 100;
/** How long a route is kept for a task whose upstream gave no TTL (`ttlMs: null`), and at most. */
const ROUTE_RETENTION_MS = 24 * 3_600_000;

export interface TaskRoute {
  readonly server: string;
  readonly principal: string | undefined;
}

/** The upstream connection a route's requests go on: the shared one, or the principal's own. */
/** `auth`: the caller's, whose kept token a token exchange may need to open (or renew) the connection. */
export type TaskConnection = (
  server: string,
  principal: string | undefined,
  auth?: unknown,
) => Promise<McpClient | undefined>;

/** The marker a relayed tools/call carries as `ctx.task`: where the forwarder leaves a CreateTaskResult. */
export class RelayedTask implements TaskContext {
  readonly taskId = undefined;
  created: JSONObject | undefined;

  detach(): Promise<string> {
    return Promise.reject(new Error('a forwarded call becomes a task upstream, not here'));
  }

  async status(): Promise<void> {}
}

/** The request's scope with the relay's marker as its task context. */
class RelayScope extends DerivedScope {
  constructor(
    request: RequestScope,
    readonly task: RelayedTask,
  ) {
    super(request);
  }
}

export class TaskRelay {
  readonly #host: McpHost;
  /** Routes by the gateway's task id: in memory by default, in Redis for several gateway instances. */
  readonly #routes: TaskRouteStore;
  readonly #connection: TaskConnection;

  constructor(host: McpHost, routes: TaskRouteStore, connection: TaskConnection) {
    this.#host = host;
    this.#routes = routes;
    this.#connection = connection;
  }

  /** The settings the first upstream that offers tasks advertises, or undefined when none does. */
  settings(): JSONObject | undefined {
    for (const status of this.#host.servers()) {
      const extensions = this.#host.client(status.name)?.serverCapabilities?.extensions;
      const settings = isRecord(extensions) ? extensions[TASKS_EXTENSION] : undefined;
      if (isRecord(settings)) return settings as JSONObject;
    }
    return undefined;
  }

  /** Notes a CreateTaskResult an upstream answered for `route.principal`; returns it under the gateway's id. */
  async created(result: JSONObject, route: TaskRoute): Promise<JSONObject> {
    if (typeof result.taskId !== 'string') return result;
    const taskId = `${route.server}__${result.taskId}`;
    const ttl = typeof result.ttlMs === 'number' && result.ttlMs > 0 ? result.ttlMs : ROUTE_RETENTION_MS;
    const stored = { server: route.server, upstreamId: result.taskId };
    await this.#routes.set(
      taskId,
      route.principal === undefined ? stored : { ...stored, principal: route.principal },
      Math.min(ttl, ROUTE_RETENTION_MS),
    );
    return { ...result, taskId };
  }

  /** The extension one endpoint installs: the tools/call hook and the three task methods. */
  extension(settings: JSONObject): ServerExtension {
    const methods = Object.fromEntries(
      METHODS.map((method) => [
        method,
        {
          handler: (params: JSONObject | undefined, ctx: HandlerContext) =>
            this.#forward(method, params, ctx),
        },
      ]),
    );
    return {
      id: TASKS_EXTENSION,
      settings,
      gated: true,
      methods,
      callTool: async (call) => {
        if (!declaresExtension(call.scope.clientCapabilities, TASKS_EXTENSION)) return call.run(call.scope);
        const marker = new RelayedTask();
        const outcome = await call.run(new RelayScope(call.scope, marker));
        return marker.created ? call.codec.finish(marker.created) : outcome;
      },
      subscribe: (request) => this.#subscribe(request),
    };
  }

  /**
   * SEP-2663 Task Status Notifications through the gateway: a caller's listen with `taskIds` gets, for each of
   * its own tasks (another principal's id is not acknowledged, as an unknown one), a listen on the upstream the
   * task runs on, and each `notifications/tasks` it sends comes back under the gateway's task id.
   */
  async #subscribe(request: ListenRequest): Promise<ListenAttachment | undefined> {
    const ids: unknown = request.notifications?.taskIds;
    if (ids === undefined) return undefined;
    if (
      !Array.isArray(ids) ||
      ids.length > MAX_LISTENED_TASKS ||
      !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 256)
    )
      throw invalidParams(`taskIds must be an array of at most ${MAX_LISTENED_TASKS} task ids`);
    const agreed: string[] = [];
    const upstream: Subscription[] = [];
    for (const taskId of new Set(ids as string[])) {
      const route = await this.#routes.get(taskId);
      if (!route || route.principal !== request.principal) continue;
      const subscription = await this.#listenUpstream(taskId, route, request).catch(() => undefined);
      if (!subscription) continue;
      agreed.push(taskId);
      upstream.push(subscription);
    }
    return {
      acknowledged: { taskIds: agreed },
      close: () => {
        for (const subscription of upstream) void subscription.close().catch(() => undefined);
      },
    };
  }

  async #listenUpstream(
    taskId: string,
    route: StoredTaskRoute,
    request: ListenRequest,
  ): Promise<Subscription | undefined> {
    const client = await this.#connection(route.server, route.principal);
    if (!client) return undefined;
    const subscription = await client.subscribe(
      { taskIds: [route.upstreamId] } as SubscriptionFilter,
      (notification) => {
        if (notification.method !== Notification.Tasks) return;
        const { _meta: _, ...params } = notification.params ?? {};
        if (params.taskId !== route.upstreamId) return;
        request.send(Notification.Tasks, { ...params, taskId } as JSONObject);
      },
      { clientCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    );
    const agreed = (subscription.acknowledged as { taskIds?: unknown }).taskIds;
    if (Array.isArray(agreed) && agreed.includes(route.upstreamId)) return subscription;
    await subscription.close().catch(() => undefined);
    return undefined;
  }

  async #forward(method: string, params: JSONObject | undefined, ctx: HandlerContext): Promise<JSONObject> {
    const taskId = params?.taskId;
    if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 256)
      throw invalidParams('taskId must be a non-empty string');
    const route = await this.#routes.get(taskId);
    if (!route || route.principal !== ctx.principal) throw invalidParams('Unknown task');
    const client = await this.#connection(route.server, route.principal, ctx.auth);
    if (!client) throw new RpcError(McpErrorCode.InternalError, `upstream ${route.server} is not connected`);
    const { _meta: _, ...rest } = params ?? {};
    const result = await client.request(
      method,
      { ...rest, taskId: route.upstreamId },
      {
        signal: ctx.signal,
        clientCapabilities: ctx.clientCapabilities,
      },
    );
    const { _meta: _upstreamMeta, resultType: _resultType, ...answer } = result;
    if (answer.taskId === route.upstreamId) answer.taskId = taskId;
    return answer as JSONObject;
  }
}
