/**
 * Asking the client for input (elicitation, sampling, roots) from inside a handler, in both eras:
 * - handshake era: server-initiated requests on the session, tied to the request being served;
 * - 2026-07-28 (basic/patterns/mrtr): answers already present (this retry's `inputResponses` or a verified
 *   `requestState`) are returned at once; anything missing throws `InputRequiredSignal`, which the dispatcher turns
 *   into an `InputRequiredResult`. The retry re-runs the handler from the top with the answers available.
 */
import type { RequestContext } from '../jsonrpc/connection.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import { missingRequiredClientCapability } from '../mcp/errors.js';
import { Method } from '../mcp/methods.js';
import type { ServerRequests } from '../mcp/requests.js';
import type {
  ClientCapabilities,
  InputRequest,
  InputRequests,
  InputResponse,
  JSONObject,
} from '../mcp/types.js';
import type { OutgoingRequestHook } from './request-hook.js';
import { isRecord } from '../util/record.js';

export interface InputBackend {
  request(requests: InputRequests, signal: AbortSignal): Promise<Record<string, InputResponse>>;
}

/** Thrown through the handler on a 2026-07-28 request that lacks answers; never reaches the client as an error. */
export class InputRequiredSignal extends Error {
  readonly inputRequests: InputRequests;
  /** Every answer the handler consumed before it stopped: carried forward in the next requestState. */
  readonly consumed: Record<string, InputResponse>;

  constructor(inputRequests: InputRequests, consumed: Record<string, InputResponse>) {
    super('input required');
    this.name = 'InputRequiredSignal';
    this.inputRequests = inputRequests;
    this.consumed = consumed;
  }
}

/** The capability an input request needs, or undefined when the client declared it. */
export function missingCapabilityFor(
  request: InputRequest,
  capabilities: ClientCapabilities,
): ClientCapabilities | undefined {
  switch (request.method) {
    case Method.ElicitationCreate: {
      const elicitation = capabilities.elicitation;
      if (request.params.mode === 'url') return elicitation?.url ? undefined : { elicitation: { url: {} } };
      // An empty `elicitation: {}` declares form mode (2025-11-25 client/elicitation).
      return elicitation && (elicitation.form || !elicitation.url)
        ? undefined
        : { elicitation: { form: {} } };
    }
    case Method.SamplingCreateMessage:
      return capabilities.sampling ? undefined : { sampling: {} };
    case Method.RootsList:
      return capabilities.roots ? undefined : { roots: {} };
  }
}

/** Whether an answer has the shape of the result its request asks for; a malformed answer is asked again. */
export function isValidInputResponse(method: InputRequest['method'], value: unknown): value is InputResponse {
  if (!isRecord(value)) return false;
  switch (method) {
    case Method.ElicitationCreate:
      return (
        (value.action === 'accept' || value.action === 'decline' || value.action === 'cancel') &&
        (value.content === undefined || isRecord(value.content))
      );
    case Method.SamplingCreateMessage:
      return (
        (value.role === 'assistant' || value.role === 'user') &&
        typeof value.model === 'string' &&
        (isRecord(value.content) || Array.isArray(value.content))
      );
    case Method.RootsList:
      return (
        Array.isArray(value.roots) &&
        value.roots.every((root) => isRecord(root) && typeof root.uri === 'string')
      );
  }
}

/**
 * Handshake era: concurrent server-to-client requests on the session, routed onto the request's stream. An answer
 * without the shape its request asks for fails the handler's ask (as a malformed MRTR answer is asked again).
 */
export function sessionInputBackend(
  context: RequestContext,
  capabilities: () => ClientCapabilities,
  around?: { hook: OutgoingRequestHook; protocolVersion: string; extra: MessageExtra | undefined },
): InputBackend {
  // The session's connection speaks MCP: what it sends the client is ServerRequests (src/mcp/requests.ts).
  const client = context as unknown as RequestContext<ServerRequests>;
  return {
    async request(requests, signal) {
      const entries = Object.entries(requests);
      for (const [, request] of entries) {
        const missing = missingCapabilityFor(request, capabilities());
        if (missing)
          throw new Error(
            `the client does not support ${request.method} (capability ${Object.keys(missing)[0]})`,
          );
      }
      const answers = await Promise.all(
        entries.map(([, { method, params = {} }]) => {
          const send = (sent: JSONObject) => client.request(method, sent as never, { signal });
          if (!around) return send(params);
          const { hook, protocolVersion, extra } = around;
          return hook({ method, params, protocolVersion, extra }, send);
        }),
      );
      const result: Record<string, InputResponse> = {};
      entries.forEach(([key, request], index) => {
        const answer = answers[index];
        if (!isValidInputResponse(request.method, answer))
          throw new Error(`the client answered ${request.method} with a malformed result`);
        result[key] = answer;
      });
      return result;
    },
  };
}

/**
 * 2026-07-28: answers come from the request itself; missing ones end this run with an InputRequiredSignal.
 * Everything asked during the run is remembered, so concurrent asks (`Promise.all`) land in one round, and a
 * handler that swallows the signal still yields input_required.
 */
export class MrtrInputBackend implements InputBackend {
  readonly #available: Record<string, unknown>;
  readonly #capabilities: ClientCapabilities;
  /** Made when a handler first asks for input: most calls never do, and a call in flight holds only these. */
  #consumed: Record<string, InputResponse> | undefined;
  #missing: InputRequests | undefined;

  constructor(available: Record<string, unknown>, capabilities: ClientCapabilities) {
    this.#available = available;
    this.#capabilities = capabilities;
  }

  /** The input still needed when the run ended, or undefined when nothing is missing. */
  get missing(): InputRequests | undefined {
    return this.#missing && Object.keys(this.#missing).length > 0 ? { ...this.#missing } : undefined;
  }

  /** Answers the run used: carried forward in the next requestState. */
  get consumed(): Record<string, InputResponse> {
    return { ...this.#consumed };
  }

  async request(requests: InputRequests): Promise<Record<string, InputResponse>> {
    const result: Record<string, InputResponse> = {};
    let required: ClientCapabilities | undefined;
    let complete = true;
    for (const [key, request] of Object.entries(requests)) {
      const needed = missingCapabilityFor(request, this.#capabilities);
      if (needed) required = { ...required, ...needed };
      const answer = Object.hasOwn(this.#available, key) ? this.#available[key] : undefined;
      if (isValidInputResponse(request.method, answer)) {
        result[key] = answer;
        this.#consumed ??= {};
        this.#consumed[key] = answer;
      } else {
        this.#missing ??= {};
        this.#missing[key] = request;
        complete = false;
      }
    }
    // 2026-07-28: a request that needs an undeclared capability fails with -32021 (and nothing is asked).
    if (required) throw missingRequiredClientCapability(required);
    if (!complete) throw new InputRequiredSignal(this.missing ?? {}, this.consumed);
    return result;
  }
}
