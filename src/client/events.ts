import type { LoggingMessageParams } from '../mcp/types.js';

/** What a client tells its host about, besides call results. */
export interface ClientEvents {
  toolsListChanged: undefined;
  promptsListChanged: undefined;
  resourcesListChanged: undefined;
  resourceUpdated: { uri: string };
  /** A server log message (notifications/message). */
  log: LoggingMessageParams;
  /** The link is gone for good (closed by us, or died without a restart policy or after its last attempt). */
  close: { error?: Error };
  /** A dead server was restarted and subscriptions reopened. */
  restart: { attempt: number };
  /** The server ended the HTTP session (404); the client initialized a new one. */
  sessionExpired: { sessionId?: string };
  /** 2025-11-25 URL elicitation finished out of band. */
  elicitationComplete: { elicitationId: string };
}

export type ClientEventName = keyof ClientEvents;
export type ClientEventListener<K extends ClientEventName> = (event: ClientEvents[K]) => void;

/** A small typed emitter; a listener that throws does not stop the others. */
export class ClientEventEmitter {
  readonly #listeners = new Map<ClientEventName, Set<(event: never) => void>>();
  readonly #onChange: ((name: ClientEventName) => void) | undefined;

  /** `onChange` hears every listener added or removed (the client opens list-change streams on demand). */
  constructor(onChange?: (name: ClientEventName) => void) {
    this.#onChange = onChange;
  }

  listens(name: ClientEventName): boolean {
    return (this.#listeners.get(name)?.size ?? 0) > 0;
  }

  on<K extends ClientEventName>(name: K, listener: ClientEventListener<K>): () => void {
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    set.add(listener as (event: never) => void);
    this.#onChange?.(name);
    return () => this.off(name, listener);
  }

  off<K extends ClientEventName>(name: K, listener: ClientEventListener<K>): void {
    if (this.#listeners.get(name)?.delete(listener as (event: never) => void)) this.#onChange?.(name);
  }

  emit<K extends ClientEventName>(name: K, event: ClientEvents[K]): void {
    for (const listener of this.#listeners.get(name) ?? []) {
      try {
        (listener as ClientEventListener<K>)(event);
      } catch {
        // The emitter's other listeners still run.
      }
    }
  }
}
