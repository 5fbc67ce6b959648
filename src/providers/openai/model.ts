import {
  type ChatModel,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  StreamAccumulator,
  type Usage,
} from '../../agent/model.js';
import { type HttpOptions, postBearerJson, readJson } from '../shared/http.js';
import { eventJson, readEvents, streamError } from '../shared/sse.js';
import { checkTools, syntheticCallId } from '../shared/tools.js';
import { strictArgumentsFor, strictStream } from './strict.js';
import { chatRequestBody, chatResponse, chatStopReason, chatUsage } from './wire.js';

export interface OpenAIChatOptions extends HttpOptions {
  readonly model: string;
  /** Sent as `Authorization: Bearer`; optional for local servers (Ollama, vLLM). */
  readonly apiKey?: string;
  /** Including the version path. Default `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  /** Send tools with `strict: true` (schemas rewritten to fit; tools that cannot be are sent non-strict). */
  readonly strictTools?: boolean;
  /** OpenAI now wants `max_completion_tokens`; many compatible servers only know `max_tokens`. */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** The `<provider>` half of `id` (`ollama`, `deepseek`, ...). Default `openai`. */
  readonly providerName?: string;
}

/** OpenAI Chat Completions, and any server that speaks it. */
export class OpenAIChatModel implements ChatModel {
  readonly id: string;
  readonly #provider: string;
  readonly #url: string;
  readonly #options: OpenAIChatOptions;

  constructor(options: OpenAIChatOptions) {
    this.#options = options;
    this.#provider = options.providerName ?? 'openai';
    this.id = `${this.#provider}:${options.model}`;
    this.#url = `${(options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/chat/completions`;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const open = await this.#post(request, false);
    const body = await readJson(this.#provider, open);
    const response = chatResponse(body);
    if (!response)
      throw new ModelError(this.#provider, 'invalid_response', 'response has no choices[0].message');
    return strictArgumentsFor(this.#options.strictTools, request).response(response);
  }

  stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    return strictStream(strictArgumentsFor(this.#options.strictTools, request), this.#streamEvents(request));
  }

  async *#streamEvents(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const open = await this.#post(request, true);
    const acc = new StreamAccumulator();
    // Provider `index` of each streamed call -> our call index; a new index means the previous call is complete.
    const indexes = new Map<unknown, number>();
    let current = -1;
    let finishReason: string | undefined;
    let usage: Usage | undefined;
    for await (const event of readEvents(this.#provider, open)) {
      if (event.data.trim() === '[DONE]') break;
      const chunk = eventJson(this.#provider, event);
      if (chunk.error) throw streamError(this.#provider, chunk.error);
      usage = chatUsage(chunk.usage) ?? usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') yield acc.textDelta(delta.content);
      for (const fragment of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        // Some compatible servers omit `index`: a fragment is then keyed by its id; without one, a name
        // starts a new call and anything else continues the current one.
        const key: unknown = typeof fragment.index === 'number' ? fragment.index : fragment.id || undefined;
        const continues = key === undefined && current >= 0 && !fragment.function?.name;
        let index = continues ? current : indexes.get(key);
        if (index === undefined) {
          if (current >= 0) yield acc.endToolCall(current);
          index = indexes.size;
          indexes.set(key ?? `unkeyed-${index}`, index);
          current = index;
          const id =
            typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : syntheticCallId('call_');
          yield acc.startToolCall(index, id, String(fragment.function?.name ?? ''));
        }
        const args = fragment.function?.arguments;
        if (typeof args === 'string' && args !== '') yield acc.toolCallDelta(index, args);
        else if (args && typeof args === 'object') yield acc.toolCallDelta(index, JSON.stringify(args));
      }
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    }
    for (const index of acc.openToolCalls()) yield acc.endToolCall(index);
    yield acc.finish(chatStopReason(finishReason, indexes.size > 0), usage, finishReason);
  }

  #post(request: ModelRequest, stream: boolean) {
    checkTools(this.#provider, request.tools);
    const body = chatRequestBody(this.#options.model, request, {
      strictTools: this.#options.strictTools ?? false,
      maxTokensField: this.#options.maxTokensField ?? 'max_completion_tokens',
      stream,
    });
    return postBearerJson(this.#options, {
      provider: this.#provider,
      url: this.#url,
      body,
      stream,
      signal: request.signal,
    });
  }
}
