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
import { anthropicResponse, anthropicStopReason, anthropicUsage, messagesRequestBody } from './wire.js';

export interface AnthropicOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey?: string;
  /** Without the version path. Default `https://api.anthropic.com`. */
  readonly baseUrl?: string;
  /** `max_tokens` is required by the Messages API; used when a request sets none. Default 4096. */
  readonly defaultMaxTokens?: number;
  /** `anthropic-version` header. Default `2023-06-01`. */
  readonly apiVersion?: string;
}

/** Anthropic Messages API (`POST /v1/messages`). */
export class AnthropicModel implements ChatModel {
  readonly id: string;
  readonly #url: string;
  readonly #provider = 'anthropic';
  readonly #options: AnthropicOptions;

  constructor(options: AnthropicOptions) {
    this.#options = options;
    this.id = `${this.#provider}:${options.model}`;
    const base = (options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
    this.#url = `${base.endsWith('/v1') ? base : `${base}/v1`}/messages`;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const body = await readJson(this.#provider, await this.#post(request, false));
    const response = anthropicResponse(body);
    if (!response) throw new ModelError(this.#provider, 'invalid_response', 'response has no content array');
    return response;
  }

  /** Events: message_start, content_block_start/delta/stop, message_delta, message_stop (and ping, error). */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const open = await this.#post(request, true);
    const acc = new StreamAccumulator();
    const calls = new Map<number, number>(); // content block index -> call index
    let inputTokens: number | undefined;
    let usage: Usage | undefined;
    let stopReason: string | undefined;
    let stopped = false;
    for await (const event of readEvents(this.#provider, open)) {
      const data = eventJson(this.#provider, event);
      const call = calls.get(data.index);
      switch (data.type) {
        case 'message_start':
          inputTokens = data.message?.usage?.input_tokens;
          break;
        case 'content_block_start':
          if (data.content_block?.type === 'tool_use') {
            const index = calls.size;
            calls.set(data.index, index);
            yield acc.startToolCall(
              index,
              String(data.content_block.id),
              String(data.content_block.name ?? ''),
            );
          } else if (data.content_block?.type === 'text' && data.content_block.text) {
            yield acc.textDelta(data.content_block.text);
          }
          break;
        case 'content_block_delta':
          if (data.delta?.type === 'text_delta') yield acc.textDelta(String(data.delta.text ?? ''));
          if (data.delta?.type === 'input_json_delta' && call !== undefined) {
            yield acc.toolCallDelta(call, String(data.delta.partial_json ?? ''));
          }
          break;
        case 'content_block_stop':
          if (call !== undefined) yield acc.endToolCall(call);
          break;
        case 'message_delta':
          stopReason = data.delta?.stop_reason ?? stopReason;
          usage = anthropicUsage({ input_tokens: inputTokens, ...data.usage }) ?? usage;
          break;
        case 'message_stop':
          stopped = true;
          break;
        case 'error':
          throw streamError(this.#provider, data.error ?? data);
      }
      if (stopped) break;
    }
    if (!stopped)
      throw new ModelError(this.#provider, 'invalid_response', 'stream ended before message_stop');
    for (const index of acc.openToolCalls()) yield acc.endToolCall(index);
    yield acc.finish(anthropicStopReason(stopReason), usage, stopReason);
  }

  #post(request: ModelRequest, stream: boolean) {
    checkTools(this.#provider, request.tools);
    const body = messagesRequestBody(this.#options.model, request, {
      defaultMaxTokens: this.#options.defaultMaxTokens ?? 4096,
      stream,
    });
    const headers: Record<string, string> = { 'anthropic-version': this.#options.apiVersion ?? '2023-06-01' };
    if (stream) headers.accept = 'text/event-stream';
    if (this.#options.apiKey) headers['x-api-key'] = this.#options.apiKey;
    return postJson(this.#options, {
      provider: this.#provider,
      url: this.#url,
      headers,
      body,
      signal: request.signal,
    });
  }
}
