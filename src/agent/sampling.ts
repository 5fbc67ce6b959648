/**
 * `sampling/createMessage` from a server, answered by the agent's own model once a person (or a policy
 * the embedding application supplies) approves it (client/sampling: "Human in the loop").
 */
import type { CreateMessageRequestParams, CreateMessageResult } from '../mcp/types.js';
import type { ChatMessage, ChatModel, ContentPart } from './model.js';
import { isRecord } from '../util/record.js';

export interface SamplingOptions {
  /** Decides whether `server` may use the model for this request. */
  readonly approve: (
    server: string,
    params: CreateMessageRequestParams,
    signal: AbortSignal,
  ) => Promise<boolean>;
  /** Upper bound on `maxTokens` a server may ask for. Default 4096. */
  readonly maxTokens?: number;
}

export function samplingHandler(model: ChatModel, options: SamplingOptions) {
  return async (
    server: string,
    params: CreateMessageRequestParams,
    signal: AbortSignal,
  ): Promise<CreateMessageResult> => {
    if (!(await options.approve(server, params, signal))) {
      throw new Error(`sampling request from ${server} was not approved`);
    }
    const messages: ChatMessage[] = [];
    if (typeof params.systemPrompt === 'string' && params.systemPrompt !== '') {
      messages.push({ role: 'system', content: params.systemPrompt });
    }
    for (const message of Array.isArray(params.messages) ? params.messages : []) {
      const parts = contentParts(message.content);
      const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      if (message.role === 'assistant') messages.push({ role: 'assistant', content: text, toolCalls: [] });
      else messages.push({ role: 'user', content: parts });
    }
    const maxTokens = Math.min(Number(params.maxTokens) || 1024, options.maxTokens ?? 4096);
    const response = await model.generate({
      messages,
      maxTokens,
      signal,
      ...(typeof params.temperature === 'number' ? { temperature: params.temperature } : {}),
    });
    return {
      role: 'assistant',
      content: { type: 'text', text: response.message.content },
      model: model.id,
      stopReason: response.stopReason === 'max_tokens' ? 'maxTokens' : 'endTurn',
    };
  };
}

function contentParts(content: unknown): ContentPart[] {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.flatMap((block): ContentPart[] => {
    if (!isRecord(block)) return [];
    const b = block as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
    if (b.type === 'text' && typeof b.text === 'string') return [{ type: 'text', text: b.text }];
    if (b.type === 'image' && typeof b.data === 'string' && typeof b.mimeType === 'string') {
      return [{ type: 'image', data: b.data, mimeType: b.mimeType }];
    }
    return [{ type: 'text', text: `[${String(b.type)} content omitted]` }];
  });
}
