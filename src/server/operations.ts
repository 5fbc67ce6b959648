/**
 * The MCP server methods, written once for both eras. Each takes the request's scope and its revision's codec
 * and returns the finished result. Era differences live in the codec and in the scope (how input is asked
 * for, where notifications go).
 */
import { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode, invalidParams, missingRequiredClientCapability } from '../mcp/errors.js';
import type {
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  GetPromptResult,
  JSONObject,
} from '../mcp/types.js';
import { type Cache, type RevisionCodec, copyObject, isPlainObject } from './codec.js';
import { type RequestScope, createHandlerContext } from './context.js';
import { type ListKind, type ServerCore, type ToolDefinition, combineCache, completerFor } from './core.js';
import { InputRequiredSignal } from './input.js';
import { type Collection, type Page, decodeCursor, encodeCursor } from './registry.js';
import { principalOf } from './request-state.js';
import type { ValidationOutcome } from './schema.js';
import type { CacheHints } from './types.js';
import { type MaybePromise, isPromise } from '../util/maybe-promise.js';

const MAX_COMPLETION_VALUES = 100;

/** Names echoed in errors are clipped: a hostile request must not get its megabytes reflected back. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pageIndex(params: JSONObject | undefined, pageSize: number): number {
  const cursor = params?.cursor;
  if (cursor === undefined) return 0;
  const offset = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
  if (offset === undefined || offset % pageSize !== 0) throw invalidParams('Invalid cursor');
  return offset / pageSize;
}

const pageCaches = new WeakMap<Page, Cache>();

function listResult<C>(
  core: ServerCore,
  codec: RevisionCodec,
  collection: Collection<C>,
  field: ListKind,
  kind: Parameters<RevisionCodec['shape']>[0],
  params: JSONObject | undefined,
  hintsOf: (definition: C) => CacheHints,
  authInfo: unknown,
): JSONObject {
  if (core.listFilter) return filteredList(core, codec, collection, field, kind, params, hintsOf, authInfo);
  const pages = collection.pages(codec.revision, core.pageSize, (item) => codec.shape(kind, item));
  const index = pageIndex(params, core.pageSize);
  const page = pages[index];
  // A cursor past the end (the list shrank since it was issued) yields an empty last page.
  if (!page) return codec.finish({ [field]: [] }, core.defaultCache);
  let cache = pageCaches.get(page);
  if (!cache) {
    const start = index * core.pageSize;
    const definitions = collection.enabled().slice(start, start + page.items.length);
    cache = combineCache(
      core.defaultCache,
      definitions.map((entry) => hintsOf(entry.config)),
    );
    pageCaches.set(page, cache);
  }
  const result: JSONObject = { [field]: page.items };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return codec.finish(result, cache);
}

/**
 * A list under `McpServerOptions.listFilter`: the caller's entries only, paged with the same cursors. Built per
 * request, since what a caller sees depends on who it is.
 */
function filteredList<C>(
  core: ServerCore,
  codec: RevisionCodec,
  collection: Collection<C>,
  field: ListKind,
  kind: Parameters<RevisionCodec['shape']>[0],
  params: JSONObject | undefined,
  hintsOf: (definition: C) => CacheHints,
  authInfo: unknown,
): JSONObject {
  const filter = core.listFilter!;
  const entries = collection.enabled().filter((entry) => filter(field, entry.key, authInfo));
  const start = pageIndex(params, core.pageSize) * core.pageSize;
  const end = start + core.pageSize;
  const page = entries.slice(start, end);
  const result: JSONObject = { [field]: page.map((entry) => codec.shape(kind, entry.wire)) };
  if (end < entries.length) result.nextCursor = encodeCursor(end);
  const cache = combineCache(
    core.defaultCache,
    page.map((entry) => hintsOf(entry.config)),
  );
  // What one principal may see is never shared with another.
  return codec.finish(result, { ttlMs: cache.ttlMs, cacheScope: 'private' });
}

export function listTools(
  core: ServerCore,
  codec: RevisionCodec,
  params: JSONObject | undefined,
  authInfo?: unknown,
): JSONObject {
  return listResult(core, codec, core.tools, 'tools', 'tool', params, (tool) => tool.config, authInfo);
}

export function listPrompts(
  core: ServerCore,
  codec: RevisionCodec,
  params: JSONObject | undefined,
  authInfo?: unknown,
): JSONObject {
  return listResult(
    core,
    codec,
    core.prompts,
    'prompts',
    'prompt',
    params,
    (prompt) => prompt.config,
    authInfo,
  );
}

export function listResourceTemplates(
  core: ServerCore,
  codec: RevisionCodec,
  params: JSONObject | undefined,
  authInfo?: unknown,
): JSONObject {
  return listResult(
    core,
    codec,
    core.templates,
    'resourceTemplates',
    'resourceTemplate',
    params,
    (t) => t.config,
    authInfo,
  );
}

export async function listResources(
  core: ServerCore,
  codec: RevisionCodec,
  params: JSONObject | undefined,
  authInfo?: unknown,
): Promise<JSONObject> {
  const listers = core.templates.enabled().filter((entry) => entry.config.config.list);
  if (listers.length === 0) {
    return listResult(
      core,
      codec,
      core.resources,
      'resources',
      'resource',
      params,
      (r) => r.metadata,
      authInfo,
    );
  }
  // Templates that enumerate their resources make the list dynamic: built per request, same cursors.
  const items: JSONObject[] = core.resources.enabled().map((entry) => codec.shape('resource', entry.wire));
  const hints: CacheHints[] = core.resources.enabled().map((entry) => entry.config.metadata);
  for (const entry of listers) {
    const listed = (await entry.config.config.list?.()) ?? [];
    for (const { ttlMs, cacheScope, ...resource } of listed) {
      items.push(codec.shape('resource', resource as JSONObject));
      hints.push({ ttlMs, cacheScope });
    }
    hints.push(entry.config.config);
  }
  const start = pageIndex(params, core.pageSize) * core.pageSize;
  const end = start + core.pageSize;
  const result: JSONObject = { resources: items.slice(start, end) };
  if (end < items.length) result.nextCursor = encodeCursor(end);
  return codec.finish(result, combineCache(core.defaultCache, hints));
}

/** The part of `required` the client did not declare (one level of sub-capabilities deep), or undefined. */
function missingCapabilities(
  required: ClientCapabilities,
  declared: ClientCapabilities,
): ClientCapabilities | undefined {
  const missing: ClientCapabilities = {};
  for (const [key, value] of Object.entries(required)) {
    const have = declared[key];
    if (!isObject(have)) {
      missing[key] = value;
      continue;
    }
    const lacking = isObject(value) ? Object.keys(value).filter((sub) => !isObject(have[sub])) : [];
    if (lacking.length > 0)
      missing[key] = Object.fromEntries(lacking.map((sub) => [sub, (value as JSONObject)[sub]]));
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function checkToolResult(value: unknown): CallToolResult {
  if (!isObject(value))
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
    (!content || (!isPlainObject(structured) && !content.some((block) => block.type === 'text')));
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
    const run = (next: RequestScope) => runToolCall(core, codec, next, params);
    const principal = principalOf(scope.extra?.authInfo);
    return core.extensions.callTool({ name, params, scope, codec, principal, run });
  }
  return runToolCall(core, codec, scope, params);
}

function runToolCall(
  core: ServerCore,
  codec: RevisionCodec,
  scope: RequestScope,
  params: JSONObject | undefined,
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
  if (!isObject(args)) throw invalidParams('tools/call arguments must be an object');
  const call = new ToolCall(codec, scope, tool, name);
  const checked = tool.input.validate(args);
  return isPromise(checked)
    ? Promise.resolve(checked).then((outcome) => call.run(outcome))
    : call.run(checked);
}

/** The steps of one tools/call after its arguments are checked. Closures are made only on the async path. */
class ToolCall {
  constructor(
    private readonly codec: RevisionCodec,
    private readonly scope: RequestScope,
    private readonly tool: ToolDefinition,
    private readonly name: string,
  ) {}

  run(checked: ValidationOutcome): MaybePromise<JSONObject> {
    // server/tools: input validation errors are tool execution errors the model can correct.
    if (!checked.ok) return this.#toolError(`Invalid arguments for tool ${this.name}: ${checked.message}`);
    let returned: unknown;
    try {
      returned = this.tool.handler(checked.value, createHandlerContext(this.scope));
    } catch (error) {
      return this.failed(error);
    }
    if (!isPromise(returned)) return this.returned(returned);
    // Promise.resolve: a handler may return any thenable; what goes on is always a native promise.
    return Promise.resolve(returned).then(
      (value) => this.returned(value),
      (error: unknown) => this.failed(error),
    );
  }

  returned(value: unknown): MaybePromise<JSONObject> {
    const result = checkToolResult(value);
    const output = this.tool.output;
    if (!output || result.isError === true) return this.codec.finish(shapeToolResult(this.codec, result));
    if (result.structuredContent === undefined) return this.#outputError('structuredContent is missing');
    const outcome = output.validate(result.structuredContent);
    const judge = (checked: ValidationOutcome): JSONObject =>
      checked.ok
        ? this.codec.finish(shapeToolResult(this.codec, result))
        : this.#outputError(checked.message);
    return isPromise(outcome) ? Promise.resolve(outcome).then(judge) : judge(outcome);
  }

  failed(error: unknown): JSONObject {
    rethrowProtocol(error, this.scope.signal);
    const message = error instanceof Error ? error.message : String(error);
    return this.#toolError(message || `tool ${this.name} failed`);
  }

  #outputError(message: string): JSONObject {
    return this.#toolError(
      `Tool ${this.name} returned output that does not match its outputSchema: ${message}`,
    );
  }

  #toolError(text: string): JSONObject {
    return this.codec.finish(toolError(text) as JSONObject);
  }
}

function shapeToolResult(codec: RevisionCodec, result: CallToolResult): JSONObject {
  const content = codec.content(result.content);
  const structured = (result as { structuredContent?: unknown }).structuredContent;
  // structuredContent: any JSON value on 2026-07-28, an object on 2025-06-18..2025-11-25, absent before.
  const keep =
    structured === undefined || codec.modern || (codec.revision >= '2025-06-18' && isPlainObject(structured));
  if (keep && content === result.content) return result as unknown as JSONObject;
  const shaped = copyObject(result as unknown as JSONObject);
  shaped.content = content;
  if (!keep) delete shaped.structuredContent;
  return shaped;
}

export async function readResource(
  core: ServerCore,
  codec: RevisionCodec,
  scope: RequestScope,
  params: JSONObject | undefined,
): Promise<JSONObject> {
  const uri = params?.uri;
  if (typeof uri !== 'string') throw invalidParams('resources/read requires a uri');
  const context = createHandlerContext(scope);
  const resource = core.resources.get(uri);
  if (resource) {
    const read = await resource.config.handler(uri, context);
    return finishRead(core, codec, read, resource.config.metadata);
  }
  for (const entry of core.templates.enabled()) {
    const variables = entry.config.template.match(uri);
    if (!variables) continue;
    const read = await entry.config.handler(uri, variables, context);
    return finishRead(core, codec, read, entry.config.config);
  }
  throw codec.resourceNotFound(uri);
}

function finishRead(core: ServerCore, codec: RevisionCodec, read: unknown, hints: CacheHints): JSONObject {
  if (!isObject(read) || !Array.isArray(read.contents)) {
    throw new RpcError(McpErrorCode.InternalError, 'resource handler returned no contents');
  }
  return codec.finish(read, combineCache(core.defaultCache, [hints]));
}

export async function getPrompt(
  core: ServerCore,
  codec: RevisionCodec,
  scope: RequestScope,
  params: JSONObject | undefined,
): Promise<JSONObject> {
  const name = params?.name;
  if (typeof name !== 'string') throw invalidParams('prompts/get requires a prompt name');
  const entry = core.prompts.get(name);
  if (!entry) throw invalidParams(`Unknown prompt: ${clip(name)}`, { name: clip(name) });
  const args = params?.arguments ?? {};
  if (!isObject(args) || !Object.values(args).every((value) => typeof value === 'string')) {
    throw invalidParams('prompts/get arguments must be an object of strings');
  }
  for (const argument of entry.config.config.arguments ?? []) {
    if (argument.required && args[argument.name] === undefined) {
      throw invalidParams(`Missing required argument ${argument.name} for prompt ${name}`);
    }
  }
  const result: GetPromptResult = await entry.config.handler(
    args as Record<string, string>,
    createHandlerContext(scope),
  );
  if (!isObject(result) || !Array.isArray(result.messages)) {
    throw new RpcError(McpErrorCode.InternalError, 'prompt handler returned no messages');
  }
  const messages = result.messages.map((message) => {
    const [content] = codec.content([message.content as ContentBlock]);
    if (content === message.content) return message;
    const shaped = copyObject(message as unknown as JSONObject);
    shaped.content = content as ContentBlock;
    return shaped;
  });
  const shaped = copyObject(result as unknown as JSONObject);
  shaped.messages = messages;
  return codec.finish(shaped);
}

export async function complete(
  core: ServerCore,
  codec: RevisionCodec,
  params: JSONObject | undefined,
): Promise<JSONObject> {
  const ref = params?.ref;
  const argument = params?.argument;
  if (
    !isObject(ref) ||
    !isObject(argument) ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  ) {
    throw invalidParams('completion/complete requires ref and argument {name, value}');
  }
  const context =
    isObject(params?.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  let completers: Parameters<typeof completerFor>[0];
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompt = core.prompts.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${clip(ref.name)}`);
    completers = prompt.config.config.complete;
  } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    const template = core.templates.enabled().find((entry) => entry.config.template.template === ref.uri);
    // A static resource has nothing to complete; an unknown URI is an error.
    if (!template && !core.resources.get(ref.uri))
      throw invalidParams(`Unknown resource template: ${ref.uri}`);
    completers = template?.config.config.complete;
  } else {
    throw invalidParams('completion/complete ref must be ref/prompt or ref/resource');
  }
  const completer = completerFor(completers, argument.name);
  const all = completer
    ? await completer(argument.value, { arguments: context as Record<string, string> })
    : [];
  const values = all.slice(0, MAX_COMPLETION_VALUES);
  return codec.finish({ completion: { values, total: all.length, hasMore: all.length > values.length } });
}
