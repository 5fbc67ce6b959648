import type { IncomingHttpHeaders } from 'node:http';

export type FakeProviderKind = 'openai' | 'openai-responses' | 'anthropic' | 'gemini';

/** A call the fake model makes. `arguments` as a string is sent verbatim (e.g. to send invalid JSON). */
export interface FakeToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: Record<string, unknown> | string;
}

/** The next assistant turn: text and/or tool calls. */
export interface FakeTurn {
  readonly text?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** Provider's raw stop value (`length`, `max_tokens`, `MAX_TOKENS`, ...); default derived from the turn. */
  readonly stopReason?: string;
  readonly usage?: { readonly input: number; readonly output: number };
}

/** Answer with an HTTP error in the provider's own error body format. */
export interface FakeHttpError {
  readonly error: { readonly status: number; readonly message: string; readonly retryAfter?: string };
}

/** Never answer (`headers`), or answer and stall after the first stream event (`body`). */
export interface FakeHang {
  readonly hang: 'headers' | 'body';
}

export type FakeReply = FakeTurn | FakeHttpError | FakeHang;

/** One request the fake received, as sent. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/chat/completions` or `/v1beta/models/m:streamGenerateContent?alt=sse`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  readonly body: any;
  readonly stream: boolean;
  readonly model: string;
}

/**
 * Decides the next reply. Gets the parsed request body, the recorded request and its 0-based number.
 * An array script answers request i with element i (and fails the request when it runs out).
 */
export type FakeScript =
  | ((body: any, request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>)
  | readonly FakeReply[];

export interface FakeProviderOptions {
  /** Size of the text and argument fragments in streamed replies. Default 7 characters. */
  readonly chunkSize?: number;
  /** Gemini only: send `functionCall.id` (newer API versions do). Default false, as older versions. */
  readonly geminiIds?: boolean;
  /** When set, requests without this key (in the provider's header) get a 401. */
  readonly apiKey?: string;
}

/** A tool call in a reply after ids were assigned. */
export interface WireCall {
  readonly id: string;
  readonly name: string;
  /** The argument text as it goes on the wire. */
  readonly raw: string;
  /** The argument value for formats that send objects (raw string when the script gave a string). */
  readonly value: unknown;
}

export interface WireTurn {
  readonly text: string;
  readonly calls: readonly WireCall[];
  readonly stopReason: string | undefined;
  readonly usage: { readonly input: number; readonly output: number };
  readonly model: string;
  readonly chunkSize: number;
  /** A fresh id with the given prefix (unique per fake server). */
  readonly nextId: (prefix: string) => string;
}

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** What each provider module tells the generic server. */
export interface WireFormat {
  /** Which requests this provider serves, or undefined for a 404. */
  route(method: string, url: URL): { stream: boolean; model: string } | undefined;
  /** A key check for `options.apiKey`. */
  apiKey(headers: IncomingHttpHeaders, url: URL): string | undefined;
  /** What a real server would refuse with 400; undefined when the request is well formed. */
  validate(body: any): string | undefined;
  errorBody(status: number, message: string): unknown;
  json(turn: WireTurn): unknown;
  events(turn: WireTurn): SseEvent[];
  /** The callId prefix of this provider (`call_`, `toolu_`, ...). */
  readonly callIdPrefix: string;
}

/** Splits text into fragments of `size` (at least one fragment, possibly empty). */
export function fragments(text: string, size: number): string[] {
  if (text === '') return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
