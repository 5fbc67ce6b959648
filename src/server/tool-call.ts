/**
 * tools/call, written once for both eras: find the tool, check the client declared what it requires, validate
 * the arguments, run the handler (through the extensions' hooks when there are any), and shape its result for
 * the request's revision. Handler failures become tool errors the model can read; protocol errors pass.
 */
import { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode, invalidParams, missingRequiredClientCapability } from '../mcp/errors.js';
import type { CallToolResult, ClientCapabilities, JSONObject } from '../mcp/types.js';
import { clip } from '../util/clip.js';
import { type MaybePromise, isPromise } from '../util/maybe-promise.js';
import { isRecord } from '../util/record.js';
import { type RevisionCodec, copyObject } from './codec.js';
import { type FinishingStep, type RequestScope, createHandlerContext } from './context.js';
import type { ServerCore, ToolDefinition } from './core.js';
import { InputRequiredSignal } from './input.js';
import { principalOf } from './request-state.js';
import type { ValidationOutcome } from './schema.js';

/** The part of `required` the client did not declare (one level of sub-capabilities deep), or undefined. */
function missingCapabilities(
  required: ClientCapabilities,
  declared: ClientCapabilities,
): ClientCapabilities | undefined {
  const missing: ClientCapabilities = {};
  for (const [key, value] of Object.entries(required)) {
    const have = declared[key];
    if (!isRecord(have)) {
      missing[key] = value;
      continue;
    }
    const lacking = isRecord(value) ? Object.keys(value).filter((sub) => !isRecord(have[sub])) : [];
    if (lacking.length > 0)
      missing[key] = Object.fromEntries(lacking.map((sub) => [sub, (value as JSONObject)[sub]]));
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function checkToolResult(value: unknown): CallToolResult {
  if (!isRecord(value))
    throw new RpcError(McpErrorCode.InternalError, 'tool handler returned no result object');
  const result = value as CallToolResult;
  const structured: unknown = result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : undefined;
  if (!content && structured === undefined)
    throw new RpcError(McpErrorCode.InternalError, 'tool handler returned a result without content');
  // server/tools: structured results SHOULD also be serialised into a text block. A non-object value is dropped
  // for handshake-era clients, so it always gets one unless the handler wrote text itself.
  const needsText =
    structured !== undefined &&
    (!content || (!isRecord(structured) && !content.some((block) => block.type === 'text')));
  if (!needsText) return result;
  const withText = copyObject(result as unknown as JSONObject);
  withText.content = [...(content ?? []), { type: 'text', text: JSON.stringify(structured) }];
  return withText as unknown as CallToolResult;
}

/** A failure inside a handler: protocol errors and MRTR signals pass through, anything else is the tool's error. */
function rethrowProtocol(error: unknown, signal: AbortSignal): void {
  if (error instanceof InputRequiredSignal || error instanceof RpcError) throw error;
  if (signal.aborted) throw error;
}

/**
 * tools/call. Synchronous end to end when the validator and the handler are: a small call then costs no
 * promise and no microtask, and its state is garbage before the next message is parsed. Errors a synchronous
 * path raises are thrown, not returned as rejected promises.
 */
export function callTool(
  core: ServerCore,
  codec: RevisionCodec,
  scope: RequestScope,
  params: JSONObject | undefined,
): MaybePromise<JSONObject> {
  // Extension wiring point: tools/call hooks (the tasks extension may answer with a CreateTaskResult).
  const name = params?.name;
  if (core.extensions.size > 0 && typeof name === 'string' && core.tools.get(name)) {
    // The hooks see the finished result: nothing is handed over to the dispatcher.
    const run = (next: RequestScope) => runToolCall(core, codec, next, params, false);
    const principal = principalOf(scope.extra?.authInfo);
    return core.extensions.callTool({ name, params, scope, codec, principal, run });
  }
  return runToolCall(core, codec, scope, params, true);
}

function runToolCall(
  core: ServerCore,
  codec: RevisionCodec,
  scope: RequestScope,
  params: JSONObject | undefined,
  deferrable: boolean,
): MaybePromise<JSONObject> {
  const name = params?.name;
  if (typeof name !== 'string') throw invalidParams('tools/call requires a tool name');
  const entry = core.tools.get(name);
  if (!entry) throw invalidParams(`Unknown tool: ${clip(name)}`, { name: clip(name) });
  const tool = entry.config;
  const required = tool.config.requiredClientCapabilities;
  const missing = required ? missingCapabilities(required, scope.clientCapabilities) : undefined;
  if (missing) {
    // 2026-07-28: -32021 and no side effect; a handshake session gets a tool error the model can read.
    if (scope.era === 'stateless') throw missingRequiredClientCapability(missing);
    return codec.finish(
      toolError(`Tool ${name} needs client capabilities: ${Object.keys(missing).join(', ')}`) as JSONObject,
    );
  }
  const args = params?.arguments ?? {};
  if (!isRecord(args)) throw invalidParams('tools/call arguments must be an object');
  const steps = toolSteps(tool, name);
  const checked = tool.input.validate(args);
  return isPromise(checked)
    ? Promise.resolve(checked).then((outcome) => steps.run(outcome, scope, codec, false))
    : steps.run(checked, scope, codec, deferrable);
}

const stepsByTool = new WeakMap<ToolDefinition, ToolSteps>();

/** One tool's steps, shared by all its calls: a call's state is its scope and codec, passed to each step. */
function toolSteps(tool: ToolDefinition, name: string): ToolSteps {
  const known = stepsByTool.get(tool);
  if (known?.name === name) return known;
  const steps = new ToolSteps(tool, name);
  stepsByTool.set(tool, steps);
  return steps;
}

/**
 * The steps of a tools/call after its arguments are checked. Closures are made only on the async path, and a
 * call handed to the dispatcher (RequestScope.defer) holds nothing of these: the dispatcher keeps its scope.
 */
class ToolSteps implements FinishingStep {
  readonly #tool: ToolDefinition;
  readonly name: string;

  constructor(tool: ToolDefinition, name: string) {
    this.#tool = tool;
    this.name = name;
  }

  /** `deferrable`: this call's result goes straight back to the dispatcher, which may take its last step. */
  run(
    checked: ValidationOutcome,
    scope: RequestScope,
    codec: RevisionCodec,
    deferrable: boolean,
  ): MaybePromise<JSONObject> {
    // server/tools: input validation errors are tool execution errors the model can correct.
    if (!checked.ok)
      return toolErrorResult(codec, `Invalid arguments for tool ${this.name}: ${checked.message}`);
    let returned: unknown;
    try {
      returned = this.#tool.handler(checked.value, createHandlerContext(scope));
    } catch (error) {
      return this.failed(error, scope, codec);
    }
    if (!isPromise(returned)) return this.returned(returned, scope, codec);
    // Promise.resolve: a handler may return any thenable; what goes on is always a native promise.
    const running = Promise.resolve(returned);
    // The dispatcher finishes the call in its own reaction to the handler's promise (RequestScope.defer).
    if (deferrable && scope.defer?.(this)) return running as Promise<JSONObject>;
    return running.then(
      (value) => this.returned(value, scope, codec),
      (error: unknown) => this.failed(error, scope, codec),
    );
  }

  returned(value: unknown, _scope: RequestScope, codec: RevisionCodec): MaybePromise<JSONObject> {
    const result = checkToolResult(value);
    const output = this.#tool.output;
    if (!output || result.isError === true) return codec.finish(shapeToolResult(codec, result));
    if (result.structuredContent === undefined)
      return this.#outputError(codec, 'structuredContent is missing');
    const outcome = output.validate(result.structuredContent);
    const judge = (checked: ValidationOutcome): JSONObject =>
      checked.ok ? codec.finish(shapeToolResult(codec, result)) : this.#outputError(codec, checked.message);
    return isPromise(outcome) ? Promise.resolve(outcome).then(judge) : judge(outcome);
  }

  failed(error: unknown, scope: RequestScope, codec: RevisionCodec): JSONObject {
    rethrowProtocol(error, scope.signal);
    const message = error instanceof Error ? error.message : String(error);
    return toolErrorResult(codec, message || `tool ${this.name} failed`);
  }

  #outputError(codec: RevisionCodec, message: string): JSONObject {
    return toolErrorResult(
      codec,
      `Tool ${this.name} returned output that does not match its outputSchema: ${message}`,
    );
  }
}

function toolErrorResult(codec: RevisionCodec, text: string): JSONObject {
  return codec.finish(toolError(text) as JSONObject);
}

function shapeToolResult(codec: RevisionCodec, result: CallToolResult): JSONObject {
  const content = codec.content(result.content);
  const structured = (result as { structuredContent?: unknown }).structuredContent;
  // structuredContent: any JSON value on 2026-07-28, an object on 2025-06-18..2025-11-25, absent before.
  const keep =
    structured === undefined || codec.modern || (codec.revision >= '2025-06-18' && isRecord(structured));
  if (keep && content === result.content) return result as unknown as JSONObject;
  const shaped = copyObject(result as unknown as JSONObject);
  shaped.content = content;
  if (!keep) delete shaped.structuredContent;
  return shaped;
}
