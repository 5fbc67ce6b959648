/**
 * The tasks extension on the server (SEP-2663, `io.modelcontextprotocol/tasks`): tools that declare task
 * support may answer tools/call with a CreateTaskResult (only tools/call, and only the server decides), and
 * tasks/get, tasks/update and tasks/cancel serve the task afterwards. `server.use(new TasksExtension())`.
 */
import type { RpcError } from '../../jsonrpc/errors.js';
import { invalidParams, missingRequiredClientCapability } from '../../mcp/errors.js';
import type { InputResponse, JSONObject } from '../../mcp/types.js';
import { Notification } from '../../mcp/methods.js';
import {
  type ExtensionMethod,
  type ListenAttachment,
  type ListenRequest,
  type ServerExtension,
  type ToolCallInterception,
  declaresExtension,
} from '../../server/extension.js';
import { isValidInputResponse } from '../../server/input.js';
import type { HandlerContext } from '../../server/types.js';
import { type MaybePromise, isPromise } from '../../util/maybe-promise.js';
import { LiveTask } from './live-task.js';
import { InMemoryTaskStore, TaskLimitError, type TaskStore } from './store.js';
import { TaskScope } from './task-scope.js';
import {
  TASKS_EXTENSION_ID,
  TaskMethod,
  type TaskRecord,
  type TaskSupport,
  createTaskResult,
  detailedTask,
  isTerminal,
} from './wire.js';
import { isRecord } from '../../util/record.js';

export interface TasksServerOptions {
  /** Where tasks live (default: an InMemoryTaskStore of 1000 tasks). */
  store?: TaskStore;
  /** How long a task is kept from its creation, in ms, or null for unlimited (default one hour). */
  ttlMs?: number | null;
  /** The polling interval suggested to clients (default 1000 ms). */
  pollIntervalMs?: number;
  /**
   * An `optional` tool still running after this many ms becomes a task; one that finishes sooner answers
   * directly (SEP-2663 allows either). A `required` tool becomes a task at the first turn of the event loop,
   * after any MRTR input round. Default 50 ms.
   */
  immediateResultMs?: number;
}

const MAX_TASK_ID_LENGTH = 256;
const MAX_LISTENED_TASKS = 100;
const MAX_INPUT_RESPONSES = 64;
/** The principal of a caller no transport authenticated: its tasks are shared by every such caller. */
export const ANONYMOUS_PRINCIPAL = 'anonymous';

/**
 * The owner a task is bound to: the verified caller (`principal`, as handlers see it in `ctx.principal`: the
 * issuer-qualified subject the transport's auth guard verified), else the anonymous principal.
 */
export function taskOwner(principal: string | undefined): string {
  return principal ?? ANONYMOUS_PRINCIPAL;
}

/** What a status notification reports: a change in any of it is worth one. */
function signatureOf(record: TaskRecord): string {
  return `${record.status}\u0000${record.statusMessage ?? ''}\u0000${Object.keys(record.inputRequests ?? {}).join(',')}`;
}

function readTaskId(params: JSONObject | undefined): string {
  const taskId = params?.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH)
    throw invalidParams('taskId must be a non-empty string');
  return taskId;
}

function unknownTask(): RpcError {
  // One answer for unknown, expired and someone else's: an id reveals nothing about other principals' tasks.
  return invalidParams('Unknown task');
}

export class TasksExtension implements ServerExtension {
  readonly id = TASKS_EXTENSION_ID;
  readonly settings: JSONObject = {};
  /** SEP-2663 Error Handling: tasks/* from a client that did not declare the extension is -32021. */
  readonly gated = true;
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
  readonly store: TaskStore;
  readonly #support = new Map<string, TaskSupport>();
  readonly #ttlMs: number | null;
  readonly #pollIntervalMs: number;
  readonly #immediateMs: number;

  constructor(options: TasksServerOptions = {}) {
    this.store = options.store ?? new InMemoryTaskStore();
    const ttl = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.#ttlMs = ttl === null ? null : Math.max(1, Math.floor(ttl));
    this.#pollIntervalMs = Math.max(1, Math.floor(options.pollIntervalMs ?? 1000));
    this.#immediateMs = Math.max(0, options.immediateResultMs ?? 50);
    this.methods = {
      [TaskMethod.Get]: { handler: (params, ctx) => this.#get(params, ctx) },
      [TaskMethod.Update]: { handler: (params, ctx) => this.#update(params, ctx) },
      [TaskMethod.Cancel]: { handler: (params, ctx) => this.#cancel(params, ctx) },
    };
  }

  /** Declares that a registered (or yet to be registered) tool may run as a task. */
  declare(toolName: string, support: TaskSupport = 'optional'): this {
    this.#support.set(toolName, support);
    return this;
  }

  supportOf(toolName: string): TaskSupport | undefined {
    return this.#support.get(toolName);
  }

  callTool(call: ToolCallInterception): MaybePromise<JSONObject> {
    const support = this.#support.get(call.name);
    if (!support) return call.run(call.scope);
    if (!declaresExtension(call.scope.clientCapabilities, this.id)) {
      // SEP-2663 Capability Negotiation: a required-task tool cannot serve a non-declaring client (-32021);
      // an optional one runs inline, within the request's own timeout.
      if (support === 'required') throw missingRequiredClientCapability({ extensions: { [this.id]: {} } });
      return call.run(call.scope);
    }
    return this.#runAsTask(call, support === 'required' ? 0 : this.#immediateMs);
  }

  #runAsTask(call: ToolCallInterception, windowMs: number): MaybePromise<JSONObject> {
    const live = new LiveTask({
      store: this.store,
      principal: taskOwner(call.principal),
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
    });
    const outcome = call.run(new TaskScope(call.scope, live));
    // A synchronous handler has answered already: the immediate-result shortcut.
    if (!isPromise(outcome)) return outcome;
    return new Promise<JSONObject>((resolve, reject) => {
      live.onDetach((created) => {
        created.then(
          (record) => resolve(call.codec.finish(createTaskResult(record))),
          (error: unknown) => {
            // A full store: answer the call itself rather than fail it (the client handles either shape).
            if (error instanceof TaskLimitError) live.runInline();
            else reject(error);
          },
        );
      });
      const timer = setTimeout(() => void live.detach().catch(() => {}), windowMs);
      outcome.then(
        (value) => {
          clearTimeout(timer);
          if (live.detached) void live.complete(value);
          else {
            live.dispose();
            resolve(value);
          }
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (live.detached) void live.fail(error);
          else {
            live.dispose();
            reject(error);
          }
        },
      );
    });
  }

  /**
   * SEP-2663 Task Status Notifications: `notifications.taskIds` on subscriptions/listen. Only this principal's
   * tasks are agreed to (the acknowledgement lists them); each status change sends the full DetailedTask.
   */
  async subscribe(request: ListenRequest): Promise<ListenAttachment | undefined> {
    const ids: unknown = request.notifications?.taskIds;
    if (ids === undefined) return undefined;
    if (
      !Array.isArray(ids) ||
      ids.length > MAX_LISTENED_TASKS ||
      !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= MAX_TASK_ID_LENGTH)
    )
      throw invalidParams(`taskIds must be an array of at most ${MAX_LISTENED_TASKS} task ids`);
    const principal = taskOwner(request.principal);
    const agreed: string[] = [];
    const stops: Array<() => void> = [];
    for (const taskId of new Set(ids as string[])) {
      const record = await this.store.get(taskId);
      if (!record || record.principal !== principal) continue;
      agreed.push(taskId);
      let last = signatureOf(record);
      stops.push(
        this.store.subscribe(taskId, (changed) => {
          const signature = signatureOf(changed);
          if (signature === last) return;
          last = signature;
          request.send(Notification.Tasks, detailedTask(changed) as unknown as JSONObject);
        }),
      );
    }
    return {
      acknowledged: { taskIds: agreed },
      close: () => {
        for (const stop of stops) stop();
      },
    };
  }

  async #owned(params: JSONObject | undefined, ctx: HandlerContext): Promise<TaskRecord> {
    const record = await this.store.get(readTaskId(params));
    if (!record || record.principal !== taskOwner(ctx.principal)) throw unknownTask();
    return record;
  }

  async #get(params: JSONObject | undefined, ctx: HandlerContext): Promise<JSONObject> {
    return detailedTask(await this.#owned(params, ctx)) as unknown as JSONObject;
  }

  /** SEP-2663 Task Update Requests: answers for pending keys are taken; unknown or answered keys are ignored. */
  async #update(params: JSONObject | undefined, ctx: HandlerContext): Promise<JSONObject> {
    const responses = params?.inputResponses;
    if (!isRecord(responses)) throw invalidParams('tasks/update requires an inputResponses object');
    if (Object.keys(responses).length > MAX_INPUT_RESPONSES) throw invalidParams('too many inputResponses');
    const owned = await this.#owned(params, ctx);
    await this.store.update(owned.taskId, (record) => {
      const pending = { ...(record.inputRequests ?? {}) };
      const delivered: Record<string, InputResponse> = { ...(record.inputResponses ?? {}) };
      let taken = 0;
      for (const [key, answer] of Object.entries(responses)) {
        const asked = Object.hasOwn(pending, key) ? pending[key] : undefined;
        if (!asked || !isValidInputResponse(asked.method, answer)) continue;
        delivered[key] = answer;
        delete pending[key];
        taken++;
      }
      if (taken === 0 || isTerminal(record.status)) return record;
      const stillWaiting = Object.keys(pending).length > 0;
      return {
        ...record,
        status: stillWaiting ? 'input_required' : 'working',
        inputRequests: pending,
        inputResponses: delivered,
        lastUpdatedAt: Date.now(),
      };
    });
    return {};
  }

  /** SEP-2663 Task Cancellation: a cooperative request, acknowledged again on a task already terminal. */
  async #cancel(params: JSONObject | undefined, ctx: HandlerContext): Promise<JSONObject> {
    const owned = await this.#owned(params, ctx);
    await this.store.update(owned.taskId, (record) =>
      isTerminal(record.status) || record.cancelRequested
        ? record
        : { ...record, cancelRequested: true, lastUpdatedAt: Date.now() },
    );
    return {};
  }
}
