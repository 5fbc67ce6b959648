/**
 * Server notifications that every instance of a scaled-out server must see: a `list_changed` or a
 * `resources/updated` raised on one instance reaches the `subscriptions/listen` streams (2026-07-28
 * basic/patterns/subscriptions) and the handshake sessions held by every other. The server publishes each change
 * on its bus and delivers what the bus hands back; the default bus is this process alone.
 */
export type ServerEvent =
  | { readonly type: 'listChanged'; readonly change: 'tools' | 'prompts' | 'resources' }
  | { readonly type: 'resourceUpdated'; readonly uri: string };

export type ServerEventListener = (event: ServerEvent) => void;

export interface EventBus {
  /**
   * Sends an event to every subscriber of every instance, this one included. Local subscribers are called
   * before this returns, so a change made in one tick is delivered here even when the shared backend is down.
   */
  publish(event: ServerEvent): void;
  /** Calls `listener` for every event published after this call (no replay). Returns the unsubscribe. */
  subscribe(listener: ServerEventListener): () => void;
}

/** Reads an event from untrusted bytes (another instance's publish): undefined for anything else. */
export function readServerEvent(value: unknown): ServerEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Record<string, unknown>;
  if (event.type === 'listChanged') {
    const change = event.change;
    return change === 'tools' || change === 'prompts' || change === 'resources'
      ? { type: 'listChanged', change }
      : undefined;
  }
  if (event.type === 'resourceUpdated' && typeof event.uri === 'string' && event.uri.length <= 8192) {
    return { type: 'resourceUpdated', uri: event.uri };
  }
  return undefined;
}

/** The default bus: this process's subscribers, called synchronously. */
export class InMemoryEventBus implements EventBus {
  readonly #listeners = new Set<ServerEventListener>();

  publish(event: ServerEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One failing subscriber must not keep the event from the others.
      }
    }
  }

  subscribe(listener: ServerEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
