/**
 * 2026-07-28 basic/patterns/subscriptions: `subscriptions/listen` streams. Acknowledgement first, then only the
 * notification types the client asked for, each tagged with the subscription id (the listen request's id).
 */
import { deferred } from '../util/deferred.js';
import { RpcError } from '../jsonrpc/errors.js';
import type { JSONRPCRequest, RequestId } from '../jsonrpc/messages.js';
import { McpErrorCode, invalidParams } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { Notification } from '../mcp/methods.js';
import type { StatelessRequestContext } from '../mcp/request-context.js';
import type { JSONObject, SubscriptionFilter } from '../mcp/types.js';
import { type RevisionCodec, copyObject } from './codec.js';
import type { ListenAttachment, ListenRequest } from './extension-hooks.js';
import { isRecord } from '../util/record.js';

export type ListChange = 'tools' | 'prompts' | 'resources';

const MAX_RESOURCE_SUBSCRIPTIONS = 1000;
const CORE_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'toolsListChanged',
  'promptsListChanged',
  'resourcesListChanged',
  'resourceSubscriptions',
]);

/** The extensions' part of a listen stream (extension.ts: ServerExtension.subscribe). */
export type ListenAttach = (
  request: Pick<ListenRequest, 'notifications' | 'send'>,
) => Promise<ListenAttachment | undefined>;

interface Listener {
  readonly id: RequestId;
  readonly filter: SubscriptionFilter;
  readonly resources: ReadonlySet<string>;
  readonly context: StatelessRequestContext;
  readonly end: () => void;
}

const CHANGE_NOTIFICATION: Record<ListChange, { method: string; field: keyof SubscriptionFilter }> = {
  tools: { method: Notification.ToolsListChanged, field: 'toolsListChanged' },
  prompts: { method: Notification.PromptsListChanged, field: 'promptsListChanged' },
  resources: { method: Notification.ResourcesListChanged, field: 'resourcesListChanged' },
};

function readFilter(value: unknown): SubscriptionFilter {
  if (!isRecord(value)) {
    throw invalidParams('subscriptions/listen requires a notifications filter object');
  }
  const raw = value;
  const filter: SubscriptionFilter = {};
  for (const field of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (raw[field] === true) filter[field] = true;
  }
  const uris = raw.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string')) {
      throw invalidParams('resourceSubscriptions must be an array of URIs');
    }
    if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) throw invalidParams('too many resourceSubscriptions');
    filter.resourceSubscriptions = [...new Set(uris as string[])];
  }
  return filter;
}

export class ListenHub {
  readonly #listeners = new Set<Listener>();
  readonly #max: number;

  constructor(maxListens: number) {
    this.#max = maxListens;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /**
   * Serves one listen request until its signal aborts or the server closes it. `attach` gives the filter's
   * fields beyond the core ones to the installed extensions (tasks: `taskIds`).
   */
  async listen(
    request: JSONRPCRequest,
    codec: RevisionCodec,
    context: StatelessRequestContext,
    attach?: ListenAttach,
  ): Promise<JSONObject> {
    const filter = readFilter(request.params?.notifications);
    if (this.#listeners.size >= this.#max) {
      throw new RpcError(
        McpErrorCode.InvalidRequest,
        `Too many concurrent subscriptions (limit ${this.#max})`,
      );
    }
    const id = request.id;
    const ended = deferred<void>();
    const listener: Listener = {
      id,
      filter,
      resources: new Set(filter.resourceSubscriptions ?? []),
      context,
      end: () => ended.resolve(),
    };
    const onAbort = () => ended.resolve();
    // The extensions' part of the filter, attached before the acknowledgement; what they send before it waits.
    let acknowledged = false;
    const early: Array<[string, JSONObject]> = [];
    const send = (method: string, params: JSONObject) => {
      if (!acknowledged) early.push([method, params]);
      else this.#send(listener, method, params);
    };
    // Only a filter with fields beyond the core ones waits for the extensions: the core path stays synchronous
    // up to the acknowledgement, so nothing registered in the same tick is missed.
    const notifications = request.params?.notifications as JSONObject;
    const attachment =
      attach && Object.keys(notifications).some((field) => !CORE_FILTER_FIELDS.has(field))
        ? await attach({ notifications, send })
        : undefined;
    context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      // The acknowledgement is the first message carrying this subscription id; nothing is sent before it.
      context.notify({
        jsonrpc: '2.0',
        method: Notification.SubscriptionsAcknowledged,
        params: {
          _meta: { [MetaKey.SubscriptionId]: id },
          notifications: { ...(filter as JSONObject), ...attachment?.acknowledged },
        },
      });
      acknowledged = true;
      for (const [method, params] of early.splice(0)) this.#send(listener, method, params);
      if (!context.signal.aborted) {
        this.#listeners.add(listener);
        await ended.promise;
      }
    } finally {
      attachment?.close();
      this.#listeners.delete(listener);
      context.signal.removeEventListener('abort', onAbort);
    }
    return codec.finish({ _meta: { [MetaKey.SubscriptionId]: id } });
  }

  listChanged(change: ListChange): void {
    const { method, field } = CHANGE_NOTIFICATION[change];
    for (const listener of this.#listeners) {
      if (listener.filter[field] === true) this.#send(listener, method, {});
    }
  }

  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners) {
      if (listener.resources.has(uri)) this.#send(listener, Notification.ResourceUpdated, { uri });
    }
  }

  /** Ends every subscription gracefully: each listen request gets its completion result. */
  closeAll(): void {
    for (const listener of [...this.#listeners]) listener.end();
  }

  #send(listener: Listener, method: string, params: JSONObject): void {
    if (listener.context.signal.aborted) return;
    // Copied, then the member stored: on Node 20 `{ ...params, _meta }` is a slow runtime path.
    const tagged = copyObject(params);
    tagged._meta = { [MetaKey.SubscriptionId]: listener.id };
    listener.context.notify({ jsonrpc: '2.0', method, params: tagged });
  }
}
