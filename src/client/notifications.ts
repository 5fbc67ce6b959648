/**
 * What a link answers and hears, the same in both eras: the server's requests for input (a handshake-era session
 * asks with requests of its own), ping, and the notifications the client turns into events and cache
 * invalidation before handing them to the subscriptions that asked for them.
 */
import { INPUT_REQUEST_METHODS, Method, Notification } from '../mcp/methods.js';
import type { LoggingMessageParams } from '../mcp/types.js';
import type { ResultCache } from './cache.js';
import type { ClientEventEmitter } from './events.js';
import { answerInputRequest } from './input.js';
import type { SubscriptionManager } from './subscriptions.js';
import type { ClientHandlers } from './types.js';
import type { Link } from './contracts.js';

export interface NotificationHost {
  readonly key: string;
  readonly cache: ResultCache | undefined;
  readonly events: ClientEventEmitter;
  readonly subscriptions: SubscriptionManager;
  readonly handlers: ClientHandlers | undefined;
}

const HEARD: readonly string[] = [
  Notification.ToolsListChanged,
  Notification.PromptsListChanged,
  Notification.ResourcesListChanged,
  Notification.ResourceUpdated,
  Notification.Message,
  Notification.SubscriptionsAcknowledged,
  Notification.ElicitationComplete,
  // SEP-2663 task status on a listen stream that asked for `taskIds`: routed to that subscription by its id.
  Notification.Tasks,
];

export function wireLink(link: Link, host: NotificationHost): void {
  const { connection } = link;
  for (const method of INPUT_REQUEST_METHODS) {
    connection.setRequestHandler(method, (params, context) =>
      answerInputRequest(host.handlers, method, params, { signal: context.signal }),
    );
  }
  connection.setRequestHandler(Method.Ping, () => ({}));
  for (const method of HEARD) {
    connection.setNotificationHandler(method, (params) => onNotification(host, method, params));
  }
}

function onNotification(host: NotificationHost, method: string, params: Record<string, unknown> | undefined) {
  const { cache, key: scope, events } = host;
  switch (method) {
    case Notification.ToolsListChanged:
      cache?.invalidate(scope, Method.ToolsList);
      events.emit('toolsListChanged', undefined);
      break;
    case Notification.PromptsListChanged:
      cache?.invalidate(scope, Method.PromptsList);
      events.emit('promptsListChanged', undefined);
      break;
    case Notification.ResourcesListChanged:
      cache?.invalidate(scope, Method.ResourcesList);
      cache?.invalidate(scope, Method.ResourcesTemplatesList);
      events.emit('resourcesListChanged', undefined);
      break;
    case Notification.ResourceUpdated: {
      const uri = params?.uri;
      if (typeof uri === 'string') {
        cache?.invalidate(scope, Method.ResourcesRead, { uri });
        events.emit('resourceUpdated', { uri });
      }
      break;
    }
    case Notification.Message:
      events.emit('log', (params ?? {}) as LoggingMessageParams);
      return;
    case Notification.ElicitationComplete:
      if (typeof params?.elicitationId === 'string')
        events.emit('elicitationComplete', { elicitationId: params.elicitationId });
      return;
  }
  host.subscriptions.route({ method, params });
}
