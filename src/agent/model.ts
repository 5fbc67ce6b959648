import { isRecord } from '../util/record.js';
/**
 * The provider-neutral model interface the agent loop codes against.
 *
 * A conversation is a list of `ChatMessage`s; a turn asks a `ChatModel` for the next assistant message,
 * either in one piece (`generate`) or as a stream of events (`stream`) that ends with a `done` event
 * carrying the same `ModelResponse` `generate` would have returned. Providers (src/providers/*) translate
 * these types to and from each vendor's wire format; nothing here knows about MCP or HTTP.
 */

// ---------------------------------------------------------------------------------------------------------
// Content and messages

/** Plain text. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image as base64 bytes (no `data:` prefix) and its MIME type, e.g. `image/png`. */
export interface ImagePart {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

export type ContentPart = TextPart | ImagePart;

/** Instructions for the model. Providers hoist these to their own slot (Anthropic `system`, Gemini `systemInstruction`). */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

export interface UserMessage {
  readonly role: 'user';
  readonly content: string | readonly ContentPart[];
}

/**
 * One function call the model asked for. `arguments` is always an object. When the provider sent arguments
 * that are not a JSON object, `arguments` is `{}` and `invalidArguments` says why, so the loop can send an
 * error result back to the model (the call keeps its id and is never dropped).
 */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly invalidArguments?: { readonly raw: string; readonly error: string };
  /**
   * Opaque provider token that must travel back with this call in later requests (Gemini's
   * `thoughtSignature`). Keep assistant messages intact in the history and providers handle it.
   */
  readonly signature?: string;
}

export interface AssistantMessage {
  readonly role: 'assistant';
  /** The text the model produced this turn ('' when it only called tools). */
  readonly content: string;
  /** Calls in the order the model produced them (parallel calls are several entries). */
  readonly toolCalls: readonly ToolCall[];
}

/**
 * The result of one tool call. `toolCallId` and `name` repeat the call's, so every provider can correlate
 * it (OpenAI/Anthropic by id, Gemini by name and order). `isError` reaches the model as an error result:
 * natively on Anthropic, as a clear marker on the others.
 */
export interface ToolResultMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly name: string;
  readonly content: string | readonly ContentPart[];
  readonly isError?: boolean;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

// ---------------------------------------------------------------------------------------------------------
// Requests and responses

/** A tool as the model sees it. `name` must match `^[a-zA-Z0-9_-]{1,64}$` (providers validate). */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** A JSON Schema (draft 2020-12 or 07) for the arguments object. Providers adapt it to their limits. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** Turns texts into vectors (an embeddings endpoint), for ranking by meaning: one vector per text, in order. */
export interface EmbeddingModel {
  readonly id: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** `auto` (default): the model decides; `none`: no calls; `required`: at least one call; `{ name }`: that tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  /** Aborting rejects the pending call (or ends the stream) with `signal.reason`. */
  readonly signal?: AbortSignal;
  readonly maxTokens?: number;
  readonly temperature?: number;
}

/**
 * Why the turn ended: `stop` (a final answer), `tool_calls` (the loop must run tools and continue),
 * `max_tokens` (cut off), `refusal` (safety/content filter), `other` (see `rawStopReason`).
 */
export type StopReason = 'stop' | 'tool_calls' | 'max_tokens' | 'refusal' | 'other';

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ModelResponse {
  readonly message: AssistantMessage;
  readonly stopReason: StopReason;
  /** The provider's own word for the stop reason (`end_turn`, `STOP`, `length`, ...). */
  readonly rawStopReason?: string;
  readonly usage?: Usage;
}

// ---------------------------------------------------------------------------------------------------------
// Streaming

/**
 * Events of one streamed turn, in order. Tool calls are keyed by `index` (their position in
 * `message.toolCalls`); a call's `tool_call_start` precedes its deltas and its `tool_call_end`.
 * The last event is always `done`.
 */
export type ModelStreamEvent =
  | { readonly type: 'text_delta'; readonly text: string }
  | { readonly type: 'tool_call_start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: 'tool_call_end'; readonly index: number; readonly call: ToolCall }
  | { readonly type: 'done'; readonly response: ModelResponse };

export interface ChatModel {
  /** `<provider>:<model>`, e.g. `openai:gpt-4o`. */
  readonly id: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

/**
 * Failures a provider reports (HTTP status, timeout, network, malformed response, bad configuration).
 * An abort is not a ModelError: the caller gets its own `signal.reason`.
 */
export type ModelErrorCode = 'http' | 'timeout' | 'network' | 'invalid_response' | 'config';

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
  readonly provider: string;
  /** HTTP status when `code` is `http`. */
  readonly status: number | undefined;
  /** Parsed error body (JSON or text), when the provider sent one. */
  readonly body: unknown;

  constructor(
    provider: string,
    code: ModelErrorCode,
    message: string,
    options: { status?: number; body?: unknown; cause?: unknown } = {},
  ) {
    super(`${provider}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.provider = provider;
    this.code = code;
    this.status = options.status;
    this.body = options.body;
  }

  /** Worth retrying: rate limits, overload, server faults, timeouts and dropped connections. */
  get retryable(): boolean {
    if (this.code === 'timeout' || this.code === 'network') return true;
    return this.code === 'http' && this.status !== undefined && (this.status === 429 || this.status >= 500);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

/**
 * Normalises tool-call arguments that arrive as a JSON string (OpenAI) or an object (Anthropic, Gemini).
 * Empty or absent means `{}`. Anything that is not a JSON object keeps the call but is reported in
 * `invalidArguments`.
 */
export function parseToolArguments(raw: unknown): Pick<ToolCall, 'arguments' | 'invalidArguments'> {
  if (raw === undefined || raw === null || raw === '') return { arguments: {} };
  if (isRecord(raw)) return { arguments: raw };
  if (typeof raw !== 'string') {
    return {
      arguments: {},
      invalidArguments: { raw: JSON.stringify(raw), error: 'arguments must be an object' },
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { arguments: {}, invalidArguments: { raw, error: `arguments are not valid JSON: ${reason}` } };
  }
  if (isRecord(parsed)) return { arguments: parsed };
  return { arguments: {}, invalidArguments: { raw, error: 'arguments must be a JSON object' } };
}

interface PendingCall {
  id: string;
  name: string;
  raw: string;
  signature?: string;
  call?: ToolCall;
}

/**
 * Builds a turn's `ModelResponse` while its stream events go by. Each method returns the event it
 * recorded, so a provider writes `yield acc.textDelta(chunk)`; `finish` produces the final `done` event.
 */
export class StreamAccumulator {
  #text = '';
  readonly #calls: PendingCall[] = [];

  textDelta(text: string): ModelStreamEvent {
    this.#text += text;
    return { type: 'text_delta', text };
  }

  /** Starts call number `index` (indexes are 0, 1, 2, ... in the order calls appear). */
  startToolCall(index: number, id: string, name: string, signature?: string): ModelStreamEvent {
    this.#calls[index] = { id, name, raw: '', ...(signature === undefined ? {} : { signature }) };
    return { type: 'tool_call_start', index, id, name };
  }

  toolCallDelta(index: number, argumentsDelta: string): ModelStreamEvent {
    const pending = this.#pending(index);
    pending.raw += argumentsDelta;
    return { type: 'tool_call_delta', index, argumentsDelta };
  }

  /** Ends a call: its accumulated argument text is parsed now. Ending twice returns the same call. */
  endToolCall(index: number): ModelStreamEvent {
    const pending = this.#pending(index);
    pending.call ??= {
      id: pending.id,
      name: pending.name,
      ...parseToolArguments(pending.raw),
      ...(pending.signature === undefined ? {} : { signature: pending.signature }),
    };
    return { type: 'tool_call_end', index, call: pending.call };
  }

  /** Indexes of calls started but not yet ended (providers end them before `finish`). */
  openToolCalls(): number[] {
    return this.#calls.flatMap((call, index) => (call && !call.call ? [index] : []));
  }

  hasToolCall(index: number): boolean {
    return this.#calls[index] !== undefined;
  }

  finish(stopReason: StopReason, usage?: Usage, rawStopReason?: string): ModelStreamEvent {
    const toolCalls: ToolCall[] = [];
    this.#calls.forEach((pending, index) => {
      if (!pending.call) this.endToolCall(index);
      toolCalls.push(pending.call!);
    });
    // A turn that produced calls continues the loop whatever the provider called its stop.
    const reason = toolCalls.length > 0 && stopReason === 'stop' ? 'tool_calls' : stopReason;
    const response: ModelResponse = {
      message: { role: 'assistant', content: this.#text, toolCalls },
      stopReason: reason,
      ...(rawStopReason === undefined ? {} : { rawStopReason }),
      ...(usage === undefined ? {} : { usage }),
    };
    return { type: 'done', response };
  }

  #pending(index: number): PendingCall {
    const pending = this.#calls[index];
    if (!pending) throw new Error(`tool call ${index} was never started`);
    return pending;
  }
}

/** Drains a stream and returns the response its `done` event carries. */
export async function collectResponse(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelResponse> {
  let response: ModelResponse | undefined;
  for await (const event of stream) if (event.type === 'done') response = event.response;
  if (!response) throw new Error('model stream ended without a done event');
  return response;
}
