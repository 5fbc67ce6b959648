import {
  type ChatMessage,
  type ContentPart,
  ModelError,
  type ToolDefinition,
  type ToolResultMessage,
} from '../../agent/model.js';
import { isRecord } from '../../util/record.js';

export type JsonSchema = Record<string, unknown>;

/** What OpenAI, Anthropic and Gemini all accept as a function name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Rejects tool names a provider would refuse, before the request is sent (the registry sanitises). */
export function checkTools(provider: string, tools: readonly ToolDefinition[] | undefined): void {
  const seen = new Set<string>();
  for (const tool of tools ?? []) {
    if (!TOOL_NAME.test(tool.name)) {
      throw new ModelError(
        provider,
        'config',
        `tool name ${JSON.stringify(tool.name)} must match ${TOOL_NAME}`,
      );
    }
    if (seen.has(tool.name)) throw new ModelError(provider, 'config', `duplicate tool name ${tool.name}`);
    seen.add(tool.name);
  }
}

/** Every provider wants an object schema for a function's parameters; MCP allows omitting `type`. */
export function objectSchema(schema: Readonly<JsonSchema>): JsonSchema {
  const copy: JsonSchema = { ...schema };
  delete copy.$schema;
  if (copy.type === undefined) copy.type = 'object';
  if (copy.type === 'object' && copy.properties === undefined) copy.properties = {};
  return copy;
}

/**
 * Replaces local `$ref`s (`#/$defs/x`, `#/definitions/x`, `#`) with the schemas they point to, for
 * providers without references. Recursion is cut at `maxDepth` nested expansions: the cut point becomes
 * a described object, so the schema stays finite and still says what goes there.
 */
export function inlineRefs(root: Readonly<JsonSchema>, maxDepth = 6): JsonSchema {
  const visit = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, depth));
    if (!isRecord(node)) return node;
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const { $ref: _, ...siblings } = node;
      const target = resolvePointer(root, ref);
      if (target === undefined || depth >= maxDepth) {
        const why = target === undefined ? `unresolved reference ${ref}` : `recursive ${ref}, depth limit`;
        return { type: 'object', description: joinDescription(siblings.description, `(${why})`) };
      }
      return visit({ ...target, ...siblings }, depth + 1);
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$defs' || key === 'definitions') continue;
      out[key] = visit(value, depth);
    }
    return out;
  };
  return visit(root, 0) as JsonSchema;
}

function resolvePointer(root: Readonly<JsonSchema>, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  // RFC 6901 JSON Pointer: `~1` is `/`, `~0` is `~`.
  for (const token of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
    node = isRecord(node) ? node[key] : undefined;
  }
  return isRecord(node) ? node : undefined;
}

export function joinDescription(existing: unknown, extra: string): string {
  return typeof existing === 'string' && existing !== '' ? `${existing} ${extra}` : extra;
}

/** The marker a provider without a native error flag puts in front of an error result. */
const TOOL_ERROR_MARKER = '[tool error]';

/** The text of a tool result; images are counted so a text-only wire can say they exist. */
export function resultText(result: ToolResultMessage): string {
  const text = typeof result.content === 'string' ? result.content : textOf(result.content);
  return result.isError ? `${TOOL_ERROR_MARKER} ${text}` : text;
}

export function textOf(parts: readonly ContentPart[]): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

export function imagesOf(content: string | readonly ContentPart[]) {
  return typeof content === 'string' ? [] : content.filter((part) => part.type === 'image');
}

/** System messages joined, in order; providers with a single instructions slot use this. */
export function systemText(messages: readonly ChatMessage[]): string | undefined {
  const parts = messages.flatMap((message) => (message.role === 'system' ? [message.content] : []));
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** A call id when a provider sent none (some OpenAI-compatible servers, older Gemini). */
export function syntheticCallId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}
