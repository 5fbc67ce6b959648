export { AnthropicModel, type AnthropicOptions } from './model.js';
