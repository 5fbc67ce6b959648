/**
 * Turns what a user registers (a config and a handler typed by its schemas) into the definitions the server
 * stores. Schemas are compiled here, once per registration or update.
 */
import { invalidParams } from '../mcp/errors.js';
import type { PromptArgument } from '../mcp/types.js';
import type { PromptDefinition, ToolDefinition } from './core.js';
import { EMPTY_INPUT_SCHEMA, type CompiledSchema, compileSchema } from './schema.js';
import type { PromptConfig, PromptHandler, ToolConfig, ToolHandler } from './types.js';
import { isRecord } from '../util/record.js';

export function defineTool<Args, Structured>(
  config: ToolConfig,
  handler: ToolHandler<Args, Structured>,
): ToolDefinition {
  return {
    config,
    input: config.inputSchema === undefined ? EMPTY_INPUT_SCHEMA : compileSchema(config.inputSchema, 'input'),
    output: config.outputSchema === undefined ? undefined : compileSchema(config.outputSchema, 'output'),
    // The handler's `args` type was inferred from `config.inputSchema`, whose validator runs before every call;
    // the stored handler takes what that validator returned.
    handler: handler as unknown as ToolHandler<unknown>,
  };
}

/**
 * A prompt with an `argsSchema` lists the arguments the schema declares (unless `arguments` is given) and has
 * prompts/get arguments validated before its handler runs: a mismatch is -32602 Invalid params, as for tools.
 */
export function definePrompt<Args>(
  name: string,
  config: PromptConfig,
  handler: PromptHandler<Args>,
): PromptDefinition {
  if (config.argsSchema === undefined) {
    return { config, handler: handler as unknown as PromptHandler };
  }
  const schema = compileSchema(config.argsSchema, 'input');
  const listed = config.arguments ?? promptArgumentsOf(schema);
  const validated: PromptHandler = async (args, context) => {
    const outcome = await schema.validate(args);
    if (!outcome.ok) throw invalidParams(`Invalid arguments for prompt ${name}: ${outcome.message}`);
    return handler(outcome.value as Args, context);
  };
  return { config: { ...config, arguments: listed }, handler: validated };
}

/** The prompt arguments an object schema declares: its properties, `required` as listed. */
export function promptArgumentsOf(schema: CompiledSchema): PromptArgument[] {
  const { properties, required } = schema.jsonSchema;
  if (!isRecord(properties)) return [];
  const requiredNames = new Set(Array.isArray(required) ? required : []);
  return Object.entries(properties).map(([argument, property]) => {
    const listed: PromptArgument = { name: argument };
    const details = isRecord(property) ? property : {};
    if (typeof details.title === 'string') listed.title = details.title;
    if (typeof details.description === 'string') listed.description = details.description;
    if (requiredNames.has(argument)) listed.required = true;
    return listed;
  });
}
