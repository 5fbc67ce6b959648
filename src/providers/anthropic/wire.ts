import type {
  ChatMessage,
  ContentPart,
  ModelRequest,
  ModelResponse,
  StopReason,
  ToolCall,
  ToolChoice,
  Usage,
} from '../../agent/model.js';
import { parseToolArguments } from '../../agent/model.js';
import { objectSchema, systemText } from '../shared/tools.js';

/** Messages API request body (docs.anthropic.com/en/api/messages). */
export function messagesRequestBody(
  model: string,
  request: ModelRequest,
  options: { defaultMaxTokens: number; stream: boolean },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.maxTokens ?? options.defaultMaxTokens,
    messages: anthropicMessages(request.messages),
  };
  const system = systemText(request.messages);
  if (system !== undefined) body.system = system;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: objectSchema(tool.inputSchema),
    }));
    if (request.toolChoice) body.tool_choice = anthropicToolChoice(request.toolChoice);
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (options.stream) body.stream = true;
  return body;
}

function anthropicToolChoice(choice: ToolChoice) {
  if (choice === 'auto' || choice === 'none') return { type: choice };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

function blocks(content: string | readonly ContentPart[]): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } },
  );
}

/**
 * Roles must alternate, and tool results travel as `tool_result` blocks at the start of the next user
 * message, so consecutive tool results (parallel calls) and a following user message merge into one.
 */
function anthropicMessages(messages: readonly ChatMessage[]): unknown[] {
  const out: { role: 'user' | 'assistant'; content: unknown[] }[] = [];
  const append = (role: 'user' | 'assistant', content: unknown[]) => {
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break; // hoisted to `system`
      case 'user':
        append('user', blocks(message.content));
        break;
      case 'assistant':
        append('assistant', [
          ...blocks(message.content),
          ...message.toolCalls.map((call) => ({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: call.arguments,
          })),
        ]);
        break;
      case 'tool':
        append('user', [
          {
            type: 'tool_result',
            tool_use_id: message.toolCallId,
            content: typeof message.content === 'string' ? message.content : blocks(message.content),
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return out;
}

export function anthropicStopReason(reason: unknown): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}

export function anthropicUsage(usage: any): Usage | undefined {
  if (!usage || typeof usage.input_tokens !== 'number') return undefined;
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens ?? 0 };
}

/** A `message` object -> ModelResponse. */
export function anthropicResponse(body: any): ModelResponse | undefined {
  if (!Array.isArray(body?.content)) return undefined;
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of body.content) {
    if (block?.type === 'text') text += block.text ?? '';
    if (block?.type === 'tool_use') {
      toolCalls.push({
        id: String(block.id),
        name: String(block.name ?? ''),
        ...parseToolArguments(block.input),
      });
    }
  }
  const usage = anthropicUsage(body.usage);
  return {
    message: { role: 'assistant', content: text, toolCalls },
    stopReason: anthropicStopReason(body.stop_reason),
    ...(typeof body.stop_reason === 'string' ? { rawStopReason: body.stop_reason } : {}),
    ...(usage ? { usage } : {}),
  };
}
