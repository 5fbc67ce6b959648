/**
 * MCP tool results -> the model's tool-result parts (observe). Text and images pass through; audio,
 * blobs and resource links become short textual notes (no provider takes them as tool output); embedded text
 * resources are inlined with their URI; `structuredContent` is sent as JSON when the content carries no text.
 * Large results are cut with a marker saying how much was dropped, before they reach the model.
 */
import { LocalError, RpcError } from '../jsonrpc/errors.js';
import type { CallToolResult, ContentBlock } from '../mcp/types.js';
import type { ToolCallRecord } from './events.js';
import type { ChatMessage, ContentPart } from './model.js';
import type { ToolOutcome, ToolStatus } from './middleware.js';

export interface ResultLimits {
  /** Characters of text (all parts together) sent to the model. Default 20 000. */
  readonly maxTextChars?: number;
  /** Base64 characters of images sent to the model; larger images become a note. Default 4 MiB. */
  readonly maxImageChars?: number;
}

const DEFAULT_MAX_TEXT = 20_000;
const DEFAULT_MAX_IMAGE = 4 * 1024 * 1024;

/** The tool message the model reads for a call: its text when the result is all text, its parts otherwise. */
export function toolResultMessage(record: ToolCallRecord, limits: ResultLimits | undefined): ChatMessage {
  const content = loneText(record.result, limits) ?? partsContent(toResultParts(record.result, limits));
  const { id: toolCallId, llmName: name } = record;
  return record.isError
    ? { role: 'tool', toolCallId, name, content, isError: true }
    : { role: 'tool', toolCallId, name, content };
}

/**
 * The text of a result that is one text block within the limit (most tool results): what toResultParts would
 * reduce to, without building the parts. A text part makes `structuredContent` go unsent, as there.
 */
function loneText(result: CallToolResult, limits: ResultLimits | undefined): string | undefined {
  const { content } = result;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const block = content[0];
  if (block?.type !== 'text' || typeof block.text !== 'string') return undefined;
  return block.text.length <= (limits?.maxTextChars ?? DEFAULT_MAX_TEXT) ? block.text : undefined;
}

function partsContent(parts: ContentPart[]): string | ContentPart[] {
  if (parts.length === 1 && parts[0]!.type === 'text') return parts[0]!.text;
  if (parts.every((p) => p.type === 'text'))
    return parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  return parts;
}

export function toResultParts(result: CallToolResult, limits: ResultLimits = {}): ContentPart[] {
  const maxImage = limits.maxImageChars ?? DEFAULT_MAX_IMAGE;
  const parts: ContentPart[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  for (const block of content) parts.push(blockToPart(block, maxImage));
  if (result.structuredContent !== undefined && !parts.some((part) => part.type === 'text')) {
    parts.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  }
  if (parts.length === 0)
    parts.push({ type: 'text', text: result.isError ? 'Tool failed (no details).' : '(empty result)' });
  return truncateText(parts, limits.maxTextChars ?? DEFAULT_MAX_TEXT);
}

/** The content as a single string (for text-only tool results and for logs). */
export function partsToText(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : `[image ${part.mimeType}]`)).join('\n');
}

function blockToPart(block: ContentBlock, maxImage: number): ContentPart {
  switch (block?.type) {
    case 'text':
      return { type: 'text', text: String(block.text) };
    case 'image':
      if (typeof block.data === 'string' && block.data.length <= maxImage) {
        return { type: 'image', data: block.data, mimeType: block.mimeType };
      }
      return {
        type: 'text',
        text: `[image ${block.mimeType}, ${approxBytes(block.data)} bytes, too large to show]`,
      };
    case 'audio':
      return { type: 'text', text: `[audio ${block.mimeType}, ${approxBytes(block.data)} bytes]` };
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') {
        return { type: 'text', text: `[resource ${resource.uri}]\n${resource.text}` };
      }
      const size = 'blob' in resource ? approxBytes(resource.blob) : 0;
      return {
        type: 'text',
        text: `[resource ${resource.uri} ${resource.mimeType ?? 'binary'}, ${size} bytes]`,
      };
    }
    case 'resource_link': {
      const about = block.description ? `: ${block.description}` : '';
      return { type: 'text', text: `[resource link ${block.uri} (${block.name})${about}]` };
    }
    default:
      return {
        type: 'text',
        text: `[unsupported content ${JSON.stringify((block as { type?: unknown })?.type)}]`,
      };
  }
}

function approxBytes(base64: unknown): number {
  return typeof base64 === 'string' ? Math.floor((base64.length * 3) / 4) : 0;
}

/** Cuts the text parts to `max` characters in total, marking where and how much was cut. */
export function truncateText(parts: ContentPart[], max: number): ContentPart[] {
  const total = parts.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0);
  if (total <= max) return parts;
  let budget = max;
  const out: ContentPart[] = [];
  for (const part of parts) {
    if (part.type !== 'text') {
      out.push(part);
      continue;
    }
    if (budget <= 0) continue;
    const kept = part.text.slice(0, budget);
    budget -= kept.length;
    out.push({ type: 'text', text: kept });
  }
  out.push({ type: 'text', text: `\n[truncated: showing ${max} of ${total} characters]` });
  return out;
}

/** A thrown failure of `tools/call` as a result the model can read (and a status for the transcript). */
export function failureOutcome(
  error: unknown,
  server: string,
  mcpName: string,
  aborted: boolean,
): ToolOutcome {
  const status: ToolStatus = aborted ? 'cancelled' : 'protocol_error';
  let detail: string;
  let code: number | string | undefined;
  if (error instanceof RpcError) {
    detail = `JSON-RPC error ${error.code}: ${error.message}`;
    code = error.code;
  } else if (error instanceof LocalError) {
    detail = `${error.code}: ${error.message}`;
    code = error.code;
  } else {
    detail = error instanceof Error ? error.message : String(error);
  }
  const text = aborted
    ? `Tool call to ${server}/${mcpName} was cancelled.`
    : `Tool call to ${server}/${mcpName} failed before the tool could answer (${detail}).`;
  return {
    status,
    result: { content: [{ type: 'text', text }], isError: true },
    error: { message: detail, ...(code === undefined ? {} : { code }) },
  };
}
