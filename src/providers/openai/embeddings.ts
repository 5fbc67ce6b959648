/**
 * Embeddings through the OpenAI `/v1/embeddings` API, which OpenAI, Ollama (`/v1`) and most compatible
 * servers speak: the agent's tool search ranks tools by meaning with it (`toolSearch.embeddings`).
 */
import { type EmbeddingModel, ModelError } from '../../agent/model.js';
import { type HttpOptions, postBearerJson, readJson } from '../shared/http.js';

export interface OpenAIEmbeddingsOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey?: string;
  /** Default https://api.openai.com/v1. */
  readonly baseUrl?: string;
  /** For error messages: `openai` (default), `ollama`, ... */
  readonly providerName?: string;
}

/** Texts per request: large tool sets are embedded in batches. */
const BATCH = 256;

export class OpenAIEmbeddings implements EmbeddingModel {
  readonly id: string;
  readonly #options: OpenAIEmbeddingsOptions;
  readonly #url: string;
  readonly #provider: string;

  constructor(options: OpenAIEmbeddingsOptions) {
    this.#options = options;
    this.#provider = options.providerName ?? 'openai';
    this.id = `${this.#provider}:${options.model}`;
    this.#url = `${(options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/embeddings`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      out.push(...(await this.#batch(texts.slice(start, start + BATCH), signal)));
    }
    return out;
  }

  async #batch(input: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const open = await postBearerJson(this.#options, {
      provider: this.#provider,
      url: this.#url,
      body: { model: this.#options.model, input },
      signal,
      stream: false,
    });
    const body = (await readJson(this.#provider, open)) as {
      data?: Array<{ index?: unknown; embedding?: unknown }>;
    };
    const vectors: number[][] = new Array(input.length);
    for (const item of Array.isArray(body?.data) ? body.data : []) {
      if (
        typeof item.index === 'number' &&
        Array.isArray(item.embedding) &&
        item.embedding.every((x) => typeof x === 'number')
      )
        vectors[item.index] = item.embedding as number[];
    }
    for (let i = 0; i < input.length; i++) {
      if (!vectors[i])
        throw new ModelError(
          this.#provider,
          'invalid_response',
          `POST ${this.#url}: no embedding for input ${i}`,
        );
    }
    return vectors;
  }
}
