/**
 * `toolsListChanged`, `promptsListChanged` and `resourcesListChanged` events in both eras. While someone listens
 * for them, the client subscribes to the list changes the server declares (`capabilities.*.listChanged`) through
 * the era's subscription wire: in the stateless era a subscriptions/listen stream the client owns
 * (2026-07-28 basic/patterns/subscriptions: nothing is pushed without one); in the handshake era the server
 * pushes them unasked and the subscription costs nothing on the wire (on HTTP it waits for the GET stream).
 * The events themselves come from the link's notification wiring (src/client/notifications.ts) either way.
 */
import type { SubscriptionFilter } from '../mcp/types.js';
import type { Logger } from '../util/logger.js';
import type { ClientEventEmitter, ClientEventName } from './events.js';
import type { Subscription, SubscriptionManager } from './subscriptions.js';
import type { ServerState } from './contracts.js';

/** The events this watcher serves. */
export const LIST_CHANGE_EVENTS: ReadonlySet<ClientEventName> = new Set([
  'toolsListChanged',
  'promptsListChanged',
  'resourcesListChanged',
]);

export interface ListChangeHost {
  readonly events: ClientEventEmitter;
  readonly subscriptions: SubscriptionManager;
  readonly logger: Logger;
  /** The server's state once any connect or restart in progress is over. */
  ready(): Promise<ServerState>;
}

export class ListChangeWatcher {
  readonly #host: ListChangeHost;
  #subscription: Subscription | undefined;
  #watched = '';
  #settled: Promise<void> = Promise.resolve();

  constructor(host: ListChangeHost) {
    this.#host = host;
  }

  /** Listeners changed: open, widen or close the subscription (one change at a time, in order). */
  update(): void {
    this.#settled = this.#settled
      .then(() => this.#apply())
      .catch((error: unknown) => {
        // Best effort: without the stream the server still works; its lists refresh on reconnection.
        this.#host.logger.warn('could not subscribe to list changes', error);
      });
  }

  /** Settles once the subscription matches the listeners (never rejects). */
  ready(): Promise<void> {
    return this.#settled;
  }

  async #apply(): Promise<void> {
    const state = await this.#host.ready();
    const filter = this.#wanted(state);
    const watched = JSON.stringify(filter);
    if (watched === this.#watched && this.#subscription !== undefined) return;
    const previous = this.#subscription;
    this.#subscription = undefined;
    this.#watched = '';
    if (watched !== '{}') {
      const subscription = await this.#host.subscriptions.subscribe(filter, () => undefined);
      this.#subscription = subscription;
      this.#watched = watched;
      // A stream the server ended (or a link that died for good) is opened again by the next change.
      void subscription.closed.then(() => {
        if (this.#subscription === subscription) {
          this.#subscription = undefined;
          this.#watched = '';
        }
      });
    }
    // The old subscription closes only once the new one is open: no change falls in between.
    await previous?.close();
  }

  #wanted(state: ServerState): SubscriptionFilter {
    const { tools, prompts, resources } = state.capabilities;
    const listens = (name: ClientEventName) => this.#host.events.listens(name);
    const filter: SubscriptionFilter = {};
    if (tools?.listChanged && listens('toolsListChanged')) filter.toolsListChanged = true;
    if (prompts?.listChanged && listens('promptsListChanged')) filter.promptsListChanged = true;
    if (resources?.listChanged && listens('resourcesListChanged')) filter.resourcesListChanged = true;
    return filter;
  }
}
