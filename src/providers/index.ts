import { type ChatModel, type EmbeddingModel, ModelError } from '../agent/model.js';
import { AnthropicModel } from './anthropic/model.js';
import { GeminiModel } from './gemini/model.js';
import { OpenAIEmbeddings } from './openai/embeddings.js';
import { OpenAIChatModel } from './openai/model.js';
import { OpenAIResponsesModel } from './openai-responses/model.js';
import type { HttpOptions } from './shared/http.js';

export { type AnthropicOptions, AnthropicModel } from './anthropic/index.js';
export { type GeminiOptions, GeminiModel, toGeminiSchema } from './gemini/index.js';
export {
  type OpenAIChatOptions,
  OpenAIChatModel,
  type OpenAIEmbeddingsOptions,
  OpenAIEmbeddings,
  toStrictSchema,
} from './openai/index.js';
export { type OpenAIResponsesOptions, OpenAIResponsesModel } from './openai-responses/index.js';
export type { HttpOptions } from './shared/http.js';

export const PROVIDERS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'ollama'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ModelSpec {
  readonly provider: ProviderName;
  readonly model: string;
}

export interface CreateModelOptions extends HttpOptions {
  /** OpenAI strict function calling (Chat Completions and Responses). */
  readonly strictTools?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** `<provider>:<model>` as in AGENTFORGE_MODEL. The model part may itself contain colons (`ollama:llama3.1:8b`). */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon).trim();
  const model = spec.slice(colon + 1).trim();
  if (colon < 0 || model === '' || !(PROVIDERS as readonly string[]).includes(provider)) {
    throw new ModelError(
      'agentforge',
      'config',
      `model ${JSON.stringify(spec)} must be <provider>:<model> with provider one of ${PROVIDERS.join(', ')}`,
    );
  }
  return { provider: provider as ProviderName, model };
}

/**
 * Builds the model a spec names, with credentials and endpoints from `env`: OPENAI_API_KEY /
 * OPENAI_BASE_URL (both OpenAI APIs), ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, GEMINI_API_KEY (or
 * GOOGLE_API_KEY) / GEMINI_BASE_URL. `ollama:` talks to Ollama's OpenAI-compatible endpoint
 * (OLLAMA_BASE_URL, default http://127.0.0.1:11434/v1) and needs no key. A missing key is an error,
 * unless a base URL points at a server that may not need one.
 */
export function createModel(
  spec: string,
  env: Env = process.env,
  options: CreateModelOptions = {},
): ChatModel {
  const { provider, model } = parseModelSpec(spec);
  const credentials = (keyVar: string, baseVar: string) => {
    const apiKey = nonEmpty(env[keyVar]);
    const baseUrl = nonEmpty(env[baseVar]);
    if (apiKey === undefined && baseUrl === undefined) {
      throw new ModelError(provider, 'config', `${keyVar} is not set (needed for ${spec})`);
    }
    return { ...(apiKey === undefined ? {} : { apiKey }), ...(baseUrl === undefined ? {} : { baseUrl }) };
  };
  switch (provider) {
    case 'openai':
      return new OpenAIChatModel({ ...options, model, ...credentials('OPENAI_API_KEY', 'OPENAI_BASE_URL') });
    case 'openai-responses':
      return new OpenAIResponsesModel({
        ...options,
        model,
        ...credentials('OPENAI_API_KEY', 'OPENAI_BASE_URL'),
      });
    case 'anthropic':
      return new AnthropicModel({
        ...options,
        model,
        ...credentials('ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'),
      });
    case 'gemini': {
      const keyVar =
        nonEmpty(env.GEMINI_API_KEY) === undefined && env.GOOGLE_API_KEY
          ? 'GOOGLE_API_KEY'
          : 'GEMINI_API_KEY';
      return new GeminiModel({ ...options, model, ...credentials(keyVar, 'GEMINI_BASE_URL') });
    }
    case 'ollama':
      return new OpenAIChatModel({
        ...options,
        model,
        providerName: 'ollama',
        baseUrl: nonEmpty(env.OLLAMA_BASE_URL) ?? 'http://127.0.0.1:11434/v1',
        maxTokensField: 'max_tokens',
      });
  }
}

/**
 * An embedding model for tool search from `<provider>:<model>`: `openai:` (OPENAI_API_KEY / OPENAI_BASE_URL)
 * or `ollama:` (OLLAMA_BASE_URL), both over the OpenAI embeddings API.
 */
export function createEmbeddingModel(
  spec: string,
  env: Env = process.env,
  options: HttpOptions = {},
): EmbeddingModel {
  const { provider, model } = parseModelSpec(spec);
  if (provider === 'ollama')
    return new OpenAIEmbeddings({
      ...options,
      model,
      providerName: 'ollama',
      baseUrl: nonEmpty(env.OLLAMA_BASE_URL) ?? 'http://127.0.0.1:11434/v1',
    });
  if (provider !== 'openai')
    throw new ModelError(
      provider,
      'config',
      `embeddings are served by openai: or ollama: models, not ${provider}:`,
    );
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseUrl = nonEmpty(env.OPENAI_BASE_URL);
  if (apiKey === undefined && baseUrl === undefined)
    throw new ModelError(provider, 'config', `OPENAI_API_KEY is not set (needed for ${spec})`);
  return new OpenAIEmbeddings({
    ...options,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
