/**
 * One forwarded request as both sides see it: the downstream request being served (possibly over several
 * 2026-07-28 MRTR rounds) and the upstream request the gateway made for it. Whatever the upstream asks while it
 * runs (elicitation, sampling: a server-initiated request on a handshake session, or `input_required` that the
 * client library's input loop answers) is asked of the downstream in its own era:
 * - a handshake-era downstream session gets a server-initiated request at once (`ctx.elicit`);
 * - a 2026-07-28 downstream request ends with `input_required` (the gateway's own sealed `requestState`); the
 *   upstream request stays open, parked under the request's binding (method, name, arguments, principal), and
 *   the client's retry picks it up, hands it the answers and waits for what comes next.
 * An upstream `requestState` therefore never leaves the gateway: the client library keeps it for its rounds.
 */
import type { ClientHandlers } from '../client/types.js';
import { RpcError } from '../jsonrpc/errors.js';
import { invalidParams } from '../mcp/errors.js';
import type { ClientCapabilities, InputRequest, JSONObject, LoggingLevel } from '../mcp/types.js';
import { InputRequiredSignal } from '../server/input.js';
import { digest } from '../server/request-state.js';
import type { HandlerContext } from '../server/types.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { answerWithoutCaller, declares } from './caller-input.js';
import { BridgeRelay, type RoundContext } from './relay.js';
import type { GatewayBus } from './shared-state.js';

export type InputMethod = InputRequest['method'];

const SHORT_NAMES: Record<InputMethod, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

interface PendingAsk {
  readonly key: string;
  readonly request: InputRequest;
  resolve(answer: Record<string, unknown>): void;
  reject(error: unknown): void;
}

type Settled =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** How long an upstream request waits for a 2026-07-28 client to come back with its answers. */
const DEFAULT_PARK_MS = 5 * 60_000;
/** Parked requests per gateway; past it the oldest is abandoned (each holds an open upstream request). */
const MAX_PARKED = 1000;
/** Upstream calls' AbortControllers kept for reuse (see Bridge.#reuse). */
const MAX_IDLE_CONTROLLERS = 256;

export class Exchange {
  /** The downstream request's context of the current round (progress and logs go there). */
  context: RoundContext;
  /** Aborts the upstream request (its signal is the upstream call's). */
  readonly controller: AbortController;
  readonly #asks: PendingAsk[] = [];
  #wake: (() => void) | undefined;
  #settled: Settled | undefined;
  #sequence = 0;
  /** Keys asked so far: an upstream key reused in a later round gets a suffix (answers are kept by key). */
  readonly #keys = new Set<string>();
  parkTimer: NodeJS.Timeout | undefined;
  #handlers: ClientHandlers | undefined;

  #binding: string | undefined;

  constructor(
    readonly id: string,
    /** The upstream connection it runs on: the server's name, or server and principal (per-principal). */
    readonly connection: string,
    readonly principal: string | undefined,
    readonly kind: ForwardedRequest,
    context: RoundContext,
    /** The caller's: an input request it did not declare is answered without it. */
    readonly capabilities: ClientCapabilities | undefined,
    controller: AbortController = new AbortController(),
  ) {
    this.context = context;
    this.controller = controller;
  }

  /**
   * What a retry must match to pick this exchange up (method, name, principal, arguments). Made only when a
   * round parks: a call that never asks for input pays for no digest of its arguments.
   */
  get binding(): string {
    this.#binding ??= bindingOf(this.kind, this.principal);
    return this.#binding;
  }

  /**
   * The upstream asks for input. The downstream is asked by the round being served (`drive`): inline on a
   * handshake session, with input_required on 2026-07-28.
   */
  ask(
    method: InputMethod,
    params: JSONObject,
    signal: AbortSignal,
    upstreamKey?: string,
  ): Promise<Record<string, unknown>> {
    if (!declares(this.capabilities, method, params)) return answerWithoutCaller(method);
    return new Promise((resolve, reject) => {
      const ask: PendingAsk = {
        key: this.#keyFor(method, upstreamKey),
        request: { method, params } as InputRequest,
        resolve,
        reject,
      };
      this.#asks.push(ask);
      signal.addEventListener(
        'abort',
        () => {
          const at = this.#asks.indexOf(ask);
          if (at >= 0) this.#asks.splice(at, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      this.#notify();
    });
  }

  /** The upstream call's own MRTR input handlers (`CallOptions.handlers`): its input requests come here. */
  get handlers(): ClientHandlers {
    this.#handlers ??= {
      elicitation: (params, input) =>
        this.ask('elicitation/create', params, input.signal, input.key) as Promise<never>,
      sampling: (params, input) =>
        this.ask('sampling/createMessage', params, input.signal, input.key) as Promise<never>,
      roots: async (input) => {
        const answer = await this.ask('roots/list', {}, input.signal, input.key);
        return Array.isArray(answer.roots) ? (answer.roots as never) : [];
      },
    };
    return this.#handlers;
  }

  /** The upstream's own `inputRequests` key where it gave one (2026-07-28), else `<method>-<n>`. */
  #keyFor(method: InputMethod, upstreamKey: string | undefined): string {
    const base = upstreamKey ?? `${SHORT_NAMES[method]}-${this.#sequence + 1}`;
    this.#sequence++;
    let key = base;
    for (let n = 2; this.#keys.has(key); n++) key = `${base}~${n}`;
    this.#keys.add(key);
    return key;
  }

  /** The upstream asked for input: no cache key holds its answers, and its handlers may hold our signal. */
  get asked(): boolean {
    return this.#sequence > 0;
  }

  progress(progress: { progress: number; total?: number; message?: string }): void {
    void this.context.progress(progress.progress, progress.total, progress.message);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    void this.context.log(level, data, logger);
  }

  settle(outcome: Settled): void {
    this.#settled = outcome;
    this.#notify();
  }

  /**
   * Serves one downstream round: answers what the upstream asked with this round's input, then waits for the
   * upstream's result or its next question. A question the round cannot answer ends it with input_required.
   */
  async drive(context: RoundContext, onPark: (exchange: Exchange) => void): Promise<unknown> {
    this.context = context;
    const cancel = () => this.controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        if (this.#asks.length > 0) {
          await this.#answer(context, onPark);
          continue;
        }
        const settled = this.#settled;
        if (settled) {
          if (settled.ok) return settled.value;
          throw settled.error;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      context.signal.removeEventListener('abort', cancel);
    }
  }

  async #answer(context: RoundContext, onPark: (exchange: Exchange) => void): Promise<void> {
    const asks = [...this.#asks];
    let answers: Record<string, Record<string, unknown>>;
    try {
      const requests = Object.fromEntries(asks.map((ask) => [ask.key, ask.request]));
      answers = (await context.requestInput(requests)) as Record<string, Record<string, unknown>>;
    } catch (error) {
      if (error instanceof InputRequiredSignal) {
        onPark(this);
        throw error;
      }
      // The downstream cannot answer (no such capability, a failed request): the upstream hears the error.
      for (const ask of asks) {
        this.#asks.splice(this.#asks.indexOf(ask), 1);
        ask.reject(error);
      }
      return;
    }
    for (const ask of asks) {
      this.#asks.splice(this.#asks.indexOf(ask), 1);
      ask.resolve(answers[ask.key] ?? {});
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** The downstream request an exchange serves, as a retry of it must repeat it. */
export interface ForwardedRequest {
  readonly method: string;
  readonly name: string;
  readonly arguments: unknown;
}

function bindingOf(kind: ForwardedRequest, principal: string | undefined): string {
  return `${kind.method}\u0000${kind.name}\u0000${principal ?? ''}\u0000${digest(kind.arguments)}`;
}

export interface BridgeOptions {
  /** How long a parked upstream request waits for the downstream's next round (default 5 minutes). */
  readonly parkMs?: number;
  /**
   * The bus to the other gateway instances sharing state: a retry whose upstream request another instance
   * holds is forwarded there. Without it, such a retry is answered "no longer pending".
   */
  readonly bus?: GatewayBus;
  readonly logger?: Logger;
}

/** The exchanges in flight, which upstream connection each runs on, and those parked between MRTR rounds. */
export class Bridge {
  readonly #inflight = new Map<string, Set<Exchange>>();
  readonly #parked = new Map<string, Exchange[]>();
  readonly #parkMs: number;
  readonly #idle: AbortController[] = [];
  readonly #relay: BridgeRelay<Exchange> | undefined;
  #parkedCount = 0;
  #ids = 0;

  constructor(options: BridgeOptions = {}) {
    this.#parkMs = options.parkMs ?? DEFAULT_PARK_MS;
    this.#relay =
      options.bus &&
      new BridgeRelay(
        options.bus,
        { unpark: (binding) => this.#unpark(binding), park: (exchange) => this.#park(exchange) },
        options.logger ?? silentLogger,
      );
  }

  /**
   * Runs `upstream` for one downstream request, or, on a 2026-07-28 retry that vouches for earlier rounds, picks
   * up the upstream request that round left parked.
   */
  async forward<T>(
    context: HandlerContext,
    connection: string,
    kind: ForwardedRequest,
    upstream: (exchange: Exchange) => Promise<T>,
  ): Promise<T> {
    let exchange: Exchange | undefined;
    // Only a verified 2026-07-28 requestState vouches for earlier rounds (a handshake session answers inline).
    if (context.inputRound > 0) {
      const binding = bindingOf(kind, context.principal);
      exchange = this.#unpark(binding);
      if (!exchange && this.#relay) return (await this.#relay.resume(binding, context)) as T;
      if (!exchange)
        throw invalidParams(
          'the upstream request this requestState belongs to is no longer pending: send the request again without requestState and inputResponses',
        );
    } else {
      const id = `i${(++this.#ids).toString(36)}`;
      const { principal, clientCapabilities } = context;
      exchange = new Exchange(id, connection, principal, kind, context, clientCapabilities, this.#idle.pop());
      this.#start(exchange, upstream);
    }
    const value = await exchange.drive(context, (parked) => this.#park(parked));
    this.#reuse(exchange);
    return value as T;
  }

  /**
   * Keeps a settled call's controller for the next call (Node's AbortSignal, an EventTarget given a new
   * prototype, costs a few microseconds to make): only one nothing can abort or hear any more, neither aborted
   * nor asked for input (parking needs asking), its listener on the caller's signal gone (drive returned).
   */
  #reuse(exchange: Exchange): void {
    const { controller } = exchange;
    if (exchange.asked || controller.signal.aborted || this.#idle.length >= MAX_IDLE_CONTROLLERS) return;
    this.#idle.push(controller);
  }

  /**
   * The exchange a request or log of an upstream connection belongs to when the upstream does not say (an MRTR
   * round comes to its call's own handlers): a handshake-era upstream ties a request to nothing on stdio, so it
   * is attributed only when every exchange in flight on the connection is the same principal's (the latest of
   * them), and one user's elicitation never reaches another.
   */
  exchangeFor(connection: string): Exchange | undefined {
    const inflight = this.#inflight.get(connection);
    if (!inflight || inflight.size === 0) return undefined;
    const all = [...inflight];
    const principal = all[0]!.principal;
    if (all.some((exchange) => exchange.principal !== principal)) return undefined;
    return all[all.length - 1];
  }

  /** Upstream requests still open (in flight or parked). */
  get size(): number {
    let count = 0;
    for (const set of this.#inflight.values()) count += set.size;
    return count;
  }

  /** Abandons every parked request (the gateway is closing). */
  close(): void {
    this.#relay?.close();
    for (const list of this.#parked.values())
      for (const exchange of list) exchange.controller.abort(new Error('gateway closed'));
    this.#parked.clear();
  }

  #start<T>(exchange: Exchange, upstream: (exchange: Exchange) => Promise<T>): void {
    let set = this.#inflight.get(exchange.connection);
    if (!set) {
      set = new Set();
      this.#inflight.set(exchange.connection, set);
    }
    set.add(exchange);
    let running: Promise<T>;
    try {
      running = upstream(exchange);
    } catch (error) {
      running = Promise.reject(error);
    }
    // One reaction settles the exchange and forgets it (no chain of catch and finally per call).
    const done = (outcome: Settled): void => {
      set.delete(exchange);
      if (set.size === 0 && this.#inflight.get(exchange.connection) === set)
        this.#inflight.delete(exchange.connection);
      this.#forget(exchange);
      exchange.settle(outcome);
    };
    running.then(
      (value) => done({ ok: true, value }),
      (error: unknown) => done({ ok: false, error }),
    );
  }

  #park(exchange: Exchange): void {
    if (this.#parkedCount >= MAX_PARKED) this.#evictOldest();
    const list = this.#parked.get(exchange.binding) ?? [];
    list.push(exchange);
    this.#parked.set(exchange.binding, list);
    this.#parkedCount++;
    exchange.parkTimer = setTimeout(() => {
      this.#forget(exchange);
      exchange.controller.abort(new RpcError(-32001, 'no answer to the upstream input request in time'));
    }, this.#parkMs);
    exchange.parkTimer.unref();
  }

  #unpark(binding: string): Exchange | undefined {
    const list = this.#parked.get(binding);
    const exchange = list?.shift();
    if (!exchange) return undefined;
    if (list!.length === 0) this.#parked.delete(binding);
    this.#parkedCount--;
    clearTimeout(exchange.parkTimer);
    exchange.parkTimer = undefined;
    return exchange;
  }

  #forget(exchange: Exchange): void {
    // Only a parked exchange has a timer (and a binding): the common call that never parked stops here.
    if (exchange.parkTimer === undefined) return;
    const list = this.#parked.get(exchange.binding);
    const at = list?.indexOf(exchange) ?? -1;
    if (at < 0) return;
    list!.splice(at, 1);
    if (list!.length === 0) this.#parked.delete(exchange.binding);
    this.#parkedCount--;
    clearTimeout(exchange.parkTimer);
    exchange.parkTimer = undefined;
  }

  #evictOldest(): void {
    const [binding, list] = this.#parked.entries().next().value ?? [];
    const exchange = list?.[0];
    if (binding === undefined || !exchange) return;
    this.#forget(exchange);
    exchange.controller.abort(new Error('too many upstream requests awaiting input'));
  }
}
