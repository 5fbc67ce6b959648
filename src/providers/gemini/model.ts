import {
  type ChatModel,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  StreamAccumulator,
  type Usage,
} from '../../agent/model.js';
import { type HttpOptions, postJson, readJson } from '../shared/http.js';
import { eventJson, readEvents, streamError } from '../shared/sse.js';
import { checkTools } from '../shared/tools.js';
import {
  generateContentBody,
  geminiCall,
  geminiResponse,
  geminiStopReason,
  geminiUsage,
  partText,
  turnNumber,
} from './wire.js';

export interface GeminiOptions extends HttpOptions {
  /** e.g. `gemini-2.0-flash` (a `models/` prefix is accepted too). */
  readonly model: string;
  readonly apiKey?: string;
  /** Default `https://generativelanguage.googleapis.com`; `/v1beta` is appended unless a version is given. */
  readonly baseUrl?: string;
}

/** Google Gemini `generateContent` and `streamGenerateContent?alt=sse`. */
export class GeminiModel implements ChatModel {
  readonly id: string;
  readonly #provider = 'gemini';
  readonly #modelUrl: string;
  readonly #options: GeminiOptions;

  constructor(options: GeminiOptions) {
    this.#options = options;
    const model = options.model.replace(/^models\//, '');
    this.id = `${this.#provider}:${model}`;
    const base = (options.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '');
    const versioned = /\/v\d+(alpha|beta)?$/.test(base) ? base : `${base}/v1beta`;
    this.#modelUrl = `${versioned}/models/${encodeURIComponent(model)}`;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const body: any = await readJson(this.#provider, await this.#post(request, ':generateContent'));
    const response = geminiResponse(body, turnNumber(request));
    if (!response) throw new ModelError(this.#provider, 'invalid_response', 'response has no candidates');
    return response;
  }

  /** Each event is a whole GenerateContentResponse; function calls arrive complete, text in pieces. */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const open = await this.#post(request, ':streamGenerateContent?alt=sse');
    const acc = new StreamAccumulator();
    const turn = turnNumber(request);
    let calls = 0;
    let finishReason: string | undefined;
    let usage: Usage | undefined;
    let blocked: string | undefined;
    for await (const event of readEvents(this.#provider, open)) {
      const chunk = eventJson(this.#provider, event);
      if (chunk.error) throw streamError(this.#provider, chunk.error);
      usage = geminiUsage(chunk.usageMetadata) ?? usage;
      blocked = chunk.promptFeedback?.blockReason ?? blocked;
      const candidate = chunk.candidates?.[0];
      for (const part of Array.isArray(candidate?.content?.parts) ? candidate.content.parts : []) {
        const text = partText(part);
        if (text !== '') yield acc.textDelta(text);
        if (!part?.functionCall) continue;
        const call = geminiCall(part, turn, calls);
        const index = calls++;
        yield acc.startToolCall(index, call.id, call.name, call.signature);
        yield acc.toolCallDelta(index, JSON.stringify(part.functionCall.args ?? {}));
        yield acc.endToolCall(index);
      }
      if (typeof candidate?.finishReason === 'string') finishReason = candidate.finishReason;
    }
    if (blocked !== undefined && finishReason === undefined) {
      yield acc.finish('refusal', usage, blocked);
      return;
    }
    yield acc.finish(geminiStopReason(finishReason, calls > 0), usage, finishReason);
  }

  #post(request: ModelRequest, method: string) {
    checkTools(this.#provider, request.tools);
    const headers: Record<string, string> = {};
    if (method.includes('alt=sse')) headers.accept = 'text/event-stream';
    if (this.#options.apiKey) headers['x-goog-api-key'] = this.#options.apiKey;
    return postJson(this.#options, {
      provider: this.#provider,
      url: `${this.#modelUrl}${method}`,
      headers,
      body: generateContentBody(request),
      signal: request.signal,
    });
  }
}
