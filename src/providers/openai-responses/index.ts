export { OpenAIResponsesModel, type OpenAIResponsesOptions } from './model.js';
