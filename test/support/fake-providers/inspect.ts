import type { FakeProviderKind } from './types.js';

/** A tool result found in a request body, the same whatever the provider. */
export interface NeutralToolResult {
  /** The call id the result answers (absent for Gemini calls that had none). */
  readonly id?: string;
  /** Tool name (Gemini only; the others correlate by id). */
  readonly name?: string;
  readonly text: string;
  readonly isError: boolean;
  /** Images that travelled with this result (or, on OpenAI Chat, after the tool messages). */
  readonly images: number;
}

const MARKER = '[tool error]';

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((part: any) => part.type === 'text' || part.type === 'input_text')
          .map((part: any) => part.text)
          .join('\n')
      : '';

const imageCount = (content: unknown): number =>
  Array.isArray(content)
    ? content.filter((part: any) => ['image', 'image_url', 'input_image'].includes(part.type)).length
    : 0;

/**
 * The tool results a request carries after the model's last turn (what the agent sent back), so a
 * script can react to them: `readToolResults('anthropic', body).some((r) => r.isError)`.
 */
export function readToolResults(kind: FakeProviderKind, body: any): NeutralToolResult[] {
  switch (kind) {
    case 'openai': {
      const messages: any[] = body.messages ?? [];
      const tail = messages.slice(messages.findLastIndex((m) => m.role === 'assistant') + 1);
      const images = tail.filter((m) => m.role === 'user').reduce((n, m) => n + imageCount(m.content), 0);
      const results = tail.filter((m) => m.role === 'tool');
      return results.map((m, i) => ({
        id: m.tool_call_id,
        text: textOf(m.content),
        isError: textOf(m.content).startsWith(MARKER),
        images: i === 0 ? images : 0,
      }));
    }
    case 'openai-responses': {
      const items: any[] = Array.isArray(body.input) ? body.input : [];
      const tail = items.slice(items.findLastIndex((item) => item.type === 'function_call') + 1);
      return tail
        .filter((item) => item.type === 'function_call_output')
        .map((item) => ({
          id: item.call_id,
          text: textOf(item.output),
          isError: textOf(item.output).startsWith(MARKER),
          images: imageCount(item.output),
        }));
    }
    case 'anthropic': {
      const last = (body.messages ?? []).at(-1);
      const blocks: any[] = last?.role === 'user' && Array.isArray(last.content) ? last.content : [];
      return blocks
        .filter((block) => block.type === 'tool_result')
        .map((block) => ({
          id: block.tool_use_id,
          text: textOf(block.content),
          isError: block.is_error === true,
          images: imageCount(block.content),
        }));
    }
    case 'gemini': {
      const last = (body.contents ?? []).at(-1);
      const parts: any[] = last?.role === 'user' ? (last.parts ?? []) : [];
      const images = parts.filter((part) => part.inlineData).length;
      return parts
        .filter((part) => part.functionResponse)
        .map((part, i) => {
          const { id, name, response } = part.functionResponse;
          const isError = response && 'error' in response;
          return {
            ...(id === undefined ? {} : { id }),
            name,
            text: String(isError ? response.error : (response?.output ?? JSON.stringify(response))),
            isError: Boolean(isError),
            images: i === 0 ? images : 0,
          };
        });
    }
  }
}

/** The tool names a request offers the model. */
export function readToolNames(kind: FakeProviderKind, body: any): string[] {
  const tools: any[] = body.tools ?? [];
  switch (kind) {
    case 'openai':
      return tools.map((tool) => tool.function?.name);
    case 'openai-responses':
    case 'anthropic':
      return tools.map((tool) => tool.name);
    case 'gemini':
      return tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((fn: any) => fn.name));
  }
}
