/**
 * The MCP server methods, written once for both eras (tools/call in src/server/tool-call.ts). Each takes the request's scope and its revision's codec
 * and returns the finished result. Era differences live in the codec and in the scope (how input is asked
 * for, where notifications go).
 */
import { RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode, invalidParams } from '../mcp/errors.js';
import type { ContentBlock, GetPromptResult, JSONObject } from '../mcp/types.js';
import { type Cache, type RevisionCodec, copyObject } from './codec.js';
import { type RequestScope, createHandlerContext } from './context.js';
import { type ListKind, type ServerCore, combineCache, completerFor } from './core.js';
import { type Collection, type Page, decodeCursor, encodeCursor } from './registry.js';
import type { CacheHints } from './types.js';
import { clip } from '../util/clip.js';
import { isRecord } from '../util/record.js';

const MAX_COMPLETION_VALUES = 100;

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
  if (!isRecord(read) || !Array.isArray(read.contents)) {
    throw new RpcError(McpErrorCode.InternalError, 'resource handler returned no contents');
  }
  // A handler may give this read's own hints (a gateway carries its upstream's): they replace the
  // registration's for this read; the server's defaults still combine as for any result. They leave the
  // result here, so that only a 2026-07-28 caller gets them (from the codec).
  if (read.ttlMs === undefined && read.cacheScope === undefined)
    return codec.finish(read, combineCache(core.defaultCache, [hints]));
  const { ttlMs, cacheScope, ...rest } = read;
  const own: CacheHints = {};
  if (typeof ttlMs === 'number' && Number.isFinite(ttlMs)) own.ttlMs = ttlMs;
  if (cacheScope === 'public' || cacheScope === 'private') own.cacheScope = cacheScope;
  return codec.finish(rest, combineCache(core.defaultCache, [{ ...hints, ...own }]));
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
  if (!isRecord(args) || !Object.values(args).every((value) => typeof value === 'string')) {
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
  if (!isRecord(result) || !Array.isArray(result.messages)) {
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
    !isRecord(ref) ||
    !isRecord(argument) ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  ) {
    throw invalidParams('completion/complete requires ref and argument {name, value}');
  }
  const context =
    isRecord(params?.context) && isRecord(params.context.arguments) ? params.context.arguments : {};
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
