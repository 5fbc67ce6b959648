/**
 * 2026-07-28 MRTR rounds across gateway instances. A round that asks the caller for input leaves its upstream
 * request open on the instance that served it (the Bridge parks it); the caller's retry may reach any instance.
 * One that does not hold the request broadcasts a `resume` on the GatewayBus; the instance holding it drives
 * the round as it would a local retry, with the retry's instance standing in for the downstream request: the
 * upstream's questions travel there (answered from the retry's inputResponses and requestState, or ending the
 * retry with input_required), and progress, logs and the outcome travel back.
 *
 * Why forward the round rather than carry the upstream's own requestState sealed in the gateway's: a
 * handshake-era upstream's request is a real request open on one connection (stdio, a session) and cannot
 * move, so only forwarding serves every upstream; it keeps the one input loop of the client library for both
 * upstream eras, and the gateway's requestState stays as small as one instance makes it. The cost: the instance
 * holding the request must live until the caller answers (as with one instance), and a round's messages take
 * one Redis hop each way.
 */
import { randomUUID } from 'node:crypto';
import { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode, invalidParams } from '../mcp/errors.js';
import type { InputRequests, LoggingLevel } from '../mcp/types.js';
import { InputRequiredSignal } from '../server/input.js';
import type { HandlerContext } from '../server/types.js';
import type { Logger } from '../util/logger.js';
import { isRecord } from '../util/record.js';
import type { GatewayBus } from './shared-state.js';

/** How long the instances have to say whether they hold the request. */
const FIND_MS = 3000;
/** The instance driving a forwarded round says it is alive this often while the upstream works. */
const BEAT_MS = 5000;
/** Silence after which the other side of a forwarded round is taken for gone. */
const SILENCE_MS = 4 * BEAT_MS;
/** Largest bus message read (an upstream result included); anything bigger was not sent by a gateway. */
const MAX_MESSAGE = 16 * 1024 * 1024;

type Message = Record<string, unknown> & { readonly t: string; readonly conv: string; readonly from: string };

/**
 * What one round of an exchange uses of the downstream request it serves: the request itself, or another
 * gateway instance's retry standing in for it.
 */
export type RoundContext = Pick<HandlerContext, 'signal' | 'requestInput' | 'progress' | 'log'>;

/** An upstream request left open between rounds (the Bridge's Exchange). */
export interface ParkedRequest<E> {
  drive(context: RoundContext, onPark: (parked: E) => void): Promise<unknown>;
}

/** The parked upstream requests of this instance, as the relay takes and gives them back. */
export interface ParkedExchanges<E extends ParkedRequest<E>> {
  unpark(binding: string): E | undefined;
  park(parked: E): void;
}

/** Messages of one forwarded round, read in order. */
class Inbox {
  owner: string | undefined;
  readonly #queue: Message[] = [];
  #wake: (() => void) | undefined;

  push(message: Message): void {
    this.#queue.push(message);
    this.#wake?.();
  }

  /** The next message, or undefined after `timeoutMs` of silence. */
  async next(timeoutMs: number): Promise<Message | undefined> {
    if (this.#queue.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
    return this.#queue.shift();
  }
}

export class BridgeRelay<E extends ParkedRequest<E>> {
  readonly #bus: GatewayBus;
  readonly #parked: ParkedExchanges<E>;
  readonly #logger: Logger;
  /** Rounds this instance forwarded (it serves the retry), by conversation id. */
  readonly #forwarded = new Map<string, Inbox>();
  /** Rounds this instance drives for another (it holds the upstream request). */
  readonly #driving = new Map<string, { inbox: Inbox; controller: AbortController }>();
  readonly #unsubscribe: () => void;

  constructor(bus: GatewayBus, parked: ParkedExchanges<E>, logger: Logger) {
    this.#bus = bus;
    this.#parked = parked;
    this.#logger = logger;
    this.#unsubscribe = bus.subscribe((text) => this.#received(text));
  }

  /** Serves a retry whose upstream request another instance holds: its outcome, as a local round's. */
  async resume(binding: string, context: HandlerContext): Promise<unknown> {
    const conv = randomUUID();
    const inbox = new Inbox();
    this.#forwarded.set(conv, inbox);
    try {
      const receivers = await this.#bus.broadcast(
        JSON.stringify({ t: 'resume', conv, from: this.#bus.instance, binding }),
      );
      inbox.owner = await findOwner(inbox, receivers - 1);
      if (!inbox.owner)
        throw invalidParams(
          'the upstream request this requestState belongs to is no longer pending: send the request again without requestState and inputResponses',
        );
      return await this.#follow(conv, inbox.owner, inbox, context);
    } finally {
      this.#forwarded.delete(conv);
    }
  }

  close(): void {
    this.#unsubscribe();
    for (const { controller } of this.#driving.values()) controller.abort(new Error('gateway closed'));
  }

  async #follow(conv: string, owner: string, inbox: Inbox, context: HandlerContext): Promise<unknown> {
    const cancel = () => void this.#send(owner, { t: 'cancel', conv });
    context.signal.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        const message = await inbox.next(SILENCE_MS);
        if (!message)
          throw new RpcError(
            McpErrorCode.InternalError,
            'the gateway instance holding the upstream request stopped answering',
          );
        if (message.t === 'done') return outcomeOf(message);
        if (message.t === 'ask') await this.#answer(conv, owner, message, context);
        else if (message.t === 'progress' && typeof message.progress === 'number')
          void context.progress(
            message.progress,
            typeof message.total === 'number' ? message.total : undefined,
            typeof message.message === 'string' ? message.message : undefined,
          );
        else if (message.t === 'log' && typeof message.level === 'string')
          void context.log(
            message.level as LoggingLevel,
            message.data,
            typeof message.logger === 'string' ? message.logger : undefined,
          );
      }
    } finally {
      context.signal.removeEventListener('abort', cancel);
    }
  }

  /** The upstream asks: answered from this retry, or the retry ends with input_required (the owner re-parks). */
  async #answer(conv: string, owner: string, message: Message, context: HandlerContext): Promise<void> {
    if (!isRecord(message.requests)) return;
    let answers: unknown;
    try {
      answers = await context.requestInput(message.requests as InputRequests);
    } catch (error) {
      if (error instanceof InputRequiredSignal) {
        // Sent before the caller hears input_required, so the request is parked again before any next retry.
        await this.#send(owner, { t: 'park', conv });
        throw error;
      }
      await this.#send(owner, { t: 'failed', conv, message: messageOf(error) });
      return;
    }
    await this.#send(owner, { t: 'answers', conv, answers });
  }

  /** Another instance's retry names a request parked here: drive its round on that instance's behalf. */
  #drive(message: Message): void {
    const { conv, from } = message;
    const exchange = typeof message.binding === 'string' ? this.#parked.unpark(message.binding) : undefined;
    if (!exchange) {
      void this.#send(from, { t: 'absent', conv });
      return;
    }
    const inbox = new Inbox();
    const controller = new AbortController();
    this.#driving.set(conv, { inbox, controller });
    void this.#send(from, { t: 'found', conv });
    const send = (fields: Record<string, unknown>) => this.#send(from, { ...fields, conv });
    const round: RoundContext = {
      signal: controller.signal,
      requestInput: async (requests) => {
        await send({ t: 'ask', requests });
        const reply = await inbox.next(SILENCE_MS);
        if (reply?.t === 'answers' && isRecord(reply.answers)) return reply.answers as never;
        if (reply?.t === 'failed') throw new Error(String(reply.message));
        // Parked again: the caller was asked (input_required), or its instance went silent.
        throw new InputRequiredSignal(requests, {});
      },
      progress: async (progress, total, text) => {
        await send({ t: 'progress', progress, total, message: text });
      },
      log: async (level, data, logger) => {
        await send({ t: 'log', level, data, logger });
      },
    };
    const beat = setInterval(() => void send({ t: 'beat' }), BEAT_MS);
    beat.unref();
    exchange
      .drive(round, (parked) => this.#parked.park(parked))
      .then(
        (value) => send({ t: 'done', ok: true, value }),
        (error: unknown) =>
          error instanceof InputRequiredSignal
            ? undefined
            : send({ t: 'done', ok: false, ...errorOf(error) }),
      )
      .finally(() => {
        clearInterval(beat);
        this.#driving.delete(conv);
      });
  }

  #received(text: string): void {
    if (text.length > MAX_MESSAGE) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message) || typeof message.t !== 'string' || typeof message.conv !== 'string') return;
    if (typeof message.from !== 'string' || message.from.length > 200) return;
    const known = message as Message;
    if (known.t === 'resume') {
      if (known.from !== this.#bus.instance) this.#drive(known);
      return;
    }
    const driving = this.#driving.get(known.conv);
    if (driving) {
      if (known.t === 'cancel') driving.controller.abort(new Error('the caller cancelled'));
      else driving.inbox.push(known);
      return;
    }
    const inbox = this.#forwarded.get(known.conv);
    if (inbox && (inbox.owner === undefined || inbox.owner === known.from)) inbox.push(known);
    // A second instance holding a request under the same binding, or a round that ended: it parks again.
    else if (known.t === 'ask') void this.#send(known.from, { t: 'park', conv: known.conv });
  }

  async #send(to: string, message: Record<string, unknown>): Promise<void> {
    try {
      await this.#bus.send(to, JSON.stringify({ ...message, from: this.#bus.instance }));
    } catch (error) {
      this.#logger.warn('gateway: a forwarded MRTR round could not reach the other instance', error);
    }
  }
}

/** The instance answering `found` first; undefined once every other instance said `absent`, or in time. */
async function findOwner(inbox: Inbox, others: number): Promise<string | undefined> {
  const deadline = Date.now() + FIND_MS;
  let absent = 0;
  while (absent < others) {
    const message = await inbox.next(Math.max(1, deadline - Date.now()));
    if (!message) return undefined;
    if (message.t === 'found') return message.from;
    if (message.t === 'absent') absent++;
  }
  return undefined;
}

function outcomeOf(message: Message): unknown {
  if (message.ok === true) return message.value;
  const text = typeof message.message === 'string' ? message.message : 'upstream request failed';
  if (typeof message.code === 'number') throw new RpcError(message.code, text, message.data);
  throw new Error(text);
}

function errorOf(error: unknown): Record<string, unknown> {
  if (error instanceof RpcError) return { code: error.code, message: error.message, data: error.data };
  return { message: messageOf(error) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
