export { GeminiModel, type GeminiOptions } from './model.js';
export { toGeminiSchema } from './schema.js';
