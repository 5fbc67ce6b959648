/**
 * How the CLI ends when a person or a supervisor stops it. The first SIGINT, SIGTERM or SIGHUP aborts the
 * command's signal: in-flight tool calls are cancelled (stdio `notifications/cancelled`, HTTP streams
 * closed), the servers are shut down, and the exit code is 128 + the signal's number (130, 143, 129), as a
 * shell reports a process killed by it. A second signal exits at once; the stdio transport's exit hook still
 * kills every server process group it started (src/transports/stdio/children.ts). A daemon-like command
 * (`agentforge gateway`) may take SIGHUP for itself to reload its config, as nginx does (`onHangup`).
 */
import { constants } from 'node:os';
import { closeActivities } from './activity.js';

const HANDLED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type HandledSignal = (typeof HANDLED)[number];

/** The reason of the command's aborted signal, so callers can tell an interruption from a failure. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
  constructor(readonly signalName: HandledSignal) {
    super(`interrupted by ${signalName}`);
  }
}

/** What SIGHUP does instead of stopping the process, while a command holds it (`onHangup`). */
let hangup: (() => void) | undefined;

/** SIGHUP runs `reload` instead of shutting down until the returned function is called. */
export function onHangup(reload: () => void): () => void {
  hangup = reload;
  return () => {
    if (hangup === reload) hangup = undefined;
  };
}

export class Shutdown {
  readonly #controller = new AbortController();
  readonly #listeners = new Map<HandledSignal, () => void>();
  #received: HandledSignal | undefined;

  /** Aborted by the first signal, with an `InterruptedError` as its reason. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get received(): HandledSignal | undefined {
    return this.#received;
  }

  /** 128 + the number of the signal received, or undefined when none was. */
  get exitCode(): number | undefined {
    return this.#received === undefined ? undefined : 128 + constants.signals[this.#received];
  }

  install(): this {
    for (const name of HANDLED) {
      const listener = () => this.#onSignal(name);
      this.#listeners.set(name, listener);
      process.on(name, listener);
    }
    return this;
  }

  dispose(): void {
    for (const [name, listener] of this.#listeners) process.off(name, listener);
    this.#listeners.clear();
  }

  #onSignal(name: HandledSignal): void {
    if (name === 'SIGHUP' && hangup && this.#received === undefined) {
      hangup();
      return;
    }
    if (this.#received !== undefined) {
      // The person insists: no more waiting for servers to shut down gracefully.
      process.stderr.write(`agentforge: ${name} again, exiting now\n`);
      process.exit(this.exitCode);
    }
    this.#received = name;
    // Spinners and progress rows are cleared first, so the message is not drawn over.
    closeActivities();
    process.stderr.write(`agentforge: ${name}, cancelling and shutting the servers down\n`);
    this.#controller.abort(new InterruptedError(name));
    // Whatever still holds the event loop after the command's own cleanup must not keep the process alive.
    setTimeout(() => process.exit(this.exitCode), 10_000).unref();
  }
}
