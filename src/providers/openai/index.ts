export { OpenAIChatModel, type OpenAIChatOptions } from './model.js';
export { toStrictSchema } from './strict.js';
export { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from './embeddings.js';
