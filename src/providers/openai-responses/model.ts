import {
  type ChatModel,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  StreamAccumulator,
} from '../../agent/model.js';
import { type HttpOptions, postBearerJson, readJson } from '../shared/http.js';
import { eventJson, readEvents, streamError } from '../shared/sse.js';
import { checkTools, syntheticCallId } from '../shared/tools.js';
import { strictArgumentsFor, strictStream } from '../openai/strict.js';
import { responsesRequestBody, responsesResponse, responsesStopReason, responsesUsage } from './wire.js';

export interface OpenAIResponsesOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey?: string;
  /** Including the version path. Default `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  /** Tools are sent with `strict: true` when their schema can be made to fit (see toStrictSchema). */
  readonly strictTools?: boolean;
}

interface StreamedCall {
  index: number;
  sawDelta: boolean;
}

/** The OpenAI Responses API (`POST /responses`), streaming with its typed server-sent events. */
export class OpenAIResponsesModel implements ChatModel {
  readonly id: string;
  readonly #url: string;
  readonly #provider = 'openai-responses';
  readonly #options: OpenAIResponsesOptions;

  constructor(options: OpenAIResponsesOptions) {
    this.#options = options;
    this.id = `${this.#provider}:${options.model}`;
    this.#url = `${(options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/responses`;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const body: any = await readJson(this.#provider, await this.#post(request, false));
    if (body?.status === 'failed') throw streamError(this.#provider, body.error);
    const response = responsesResponse(body);
    if (!response) throw new ModelError(this.#provider, 'invalid_response', 'response has no output array');
    return strictArgumentsFor(this.#options.strictTools, request).response(response);
  }

  stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    return strictStream(strictArgumentsFor(this.#options.strictTools, request), this.#streamEvents(request));
  }

  async *#streamEvents(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const open = await this.#post(request, true);
    const acc = new StreamAccumulator();
    const calls = new Map<unknown, StreamedCall>(); // by output_index
    let final: any;
    let refused = false;
    for await (const event of readEvents(this.#provider, open)) {
      const data = eventJson(this.#provider, event);
      const call = calls.get(data.output_index);
      switch (data.type) {
        case 'response.output_text.delta':
          yield acc.textDelta(String(data.delta ?? ''));
          break;
        case 'response.refusal.delta':
          refused = true;
          yield acc.textDelta(String(data.delta ?? ''));
          break;
        case 'response.output_item.added':
          if (data.item?.type === 'function_call') {
            const index = calls.size;
            calls.set(data.output_index, { index, sawDelta: false });
            const id = data.item.call_id || syntheticCallId('call_');
            yield acc.startToolCall(index, id, String(data.item.name ?? ''));
          }
          break;
        case 'response.function_call_arguments.delta':
          if (call) {
            call.sawDelta = true;
            yield acc.toolCallDelta(call.index, String(data.delta ?? ''));
          }
          break;
        case 'response.function_call_arguments.done':
          // Servers that skip deltas still send the whole argument string here.
          if (call && !call.sawDelta && typeof data.arguments === 'string') {
            call.sawDelta = true;
            yield acc.toolCallDelta(call.index, data.arguments);
          }
          break;
        case 'response.output_item.done':
          if (call) yield acc.endToolCall(call.index);
          break;
        case 'response.completed':
        case 'response.incomplete':
          final = data.response;
          break;
        case 'response.failed':
          throw streamError(this.#provider, data.response?.error ?? data);
        case 'error':
          throw streamError(this.#provider, data.error ?? data);
      }
      if (final) break;
    }
    if (!final)
      throw new ModelError(this.#provider, 'invalid_response', 'stream ended before response.completed');
    for (const index of acc.openToolCalls()) yield acc.endToolCall(index);
    const { stop, raw } = responsesStopReason(final, calls.size > 0);
    yield acc.finish(refused ? 'refusal' : stop, responsesUsage(final.usage), raw);
  }

  #post(request: ModelRequest, stream: boolean) {
    checkTools(this.#provider, request.tools);
    const body = responsesRequestBody(this.#options.model, request, {
      strictTools: this.#options.strictTools ?? false,
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
