import {
  type ChatMessage,
  type ContentPart,
  type ModelRequest,
  type ModelResponse,
  parseToolArguments,
  type StopReason,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
  type Usage,
} from '../../agent/model.js';
import { imagesOf, objectSchema, resultText, syntheticCallId } from '../shared/tools.js';
import { toStrictSchema } from './strict.js';

/** Chat Completions request body (platform.openai.com/docs/api-reference/chat/create). */
export function chatRequestBody(
  model: string,
  request: ModelRequest,
  options: { strictTools: boolean; maxTokensField: 'max_tokens' | 'max_completion_tokens'; stream: boolean },
): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: chatMessages(request.messages) };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => chatTool(tool, options.strictTools));
    if (request.toolChoice) body.tool_choice = chatToolChoice(request.toolChoice);
  }
  if (request.maxTokens !== undefined) body[options.maxTokensField] = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (options.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function chatTool(tool: ToolDefinition, strict: boolean) {
  const parameters = objectSchema(tool.inputSchema);
  const strictParameters = strict ? toStrictSchema(parameters) : undefined;
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: strictParameters ?? parameters,
      ...(strictParameters ? { strict: true } : {}),
    },
  };
}

function chatToolChoice(choice: ToolChoice) {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

export function dataUrl(part: { data: string; mimeType: string }): string {
  return `data:${part.mimeType};base64,${part.data}`;
}

function chatContent(content: string | readonly ContentPart[]) {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: dataUrl(part) } },
  );
}

/**
 * Tool messages carry text only on this API, so images a tool returned follow the run of tool messages
 * as one user message (tool messages must directly follow their assistant message).
 */
function chatMessages(messages: readonly ChatMessage[]): unknown[] {
  const out: unknown[] = [];
  let pendingImages: unknown[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content });
        break;
      case 'user':
        out.push({ role: 'user', content: chatContent(message.content) });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.content === '' ? null : message.content,
          ...(message.toolCalls.length > 0 ? { tool_calls: message.toolCalls.map(chatToolCall) } : {}),
        });
        break;
      case 'tool': {
        const images = imagesOf(message.content);
        const note = images.length > 0 ? `\n[${images.length} image(s) attached in the next message]` : '';
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: resultText(message) + note });
        if (images.length > 0) {
          pendingImages.push({
            type: 'text',
            text: `Images from tool ${message.name} (${message.toolCallId}):`,
          });
          for (const image of images)
            pendingImages.push({ type: 'image_url', image_url: { url: dataUrl(image) } });
        }
        break;
      }
    }
  }
  flushImages();
  return out;
}

function chatToolCall(call: ToolCall) {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  };
}

export function chatStopReason(reason: unknown, hasCalls: boolean): StopReason {
  if (reason === 'tool_calls' || reason === 'function_call' || (hasCalls && reason === 'stop'))
    return 'tool_calls';
  if (reason === 'stop') return 'stop';
  if (reason === 'length') return 'max_tokens';
  if (reason === 'content_filter') return 'refusal';
  return 'other';
}

export function chatUsage(usage: any): Usage | undefined {
  if (!usage || typeof usage.prompt_tokens !== 'number') return undefined;
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens ?? 0 };
}

/** A `chat.completion` object -> ModelResponse (first choice). */
export function chatResponse(body: any): ModelResponse | undefined {
  const choice = body?.choices?.[0];
  const message = choice?.message;
  if (!message) return undefined;
  const toolCalls: ToolCall[] = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map(
    (call: any): ToolCall => ({
      id: typeof call.id === 'string' && call.id !== '' ? call.id : syntheticCallId('call_'),
      name: String(call.function?.name ?? ''),
      ...parseToolArguments(call.function?.arguments),
    }),
  );
  const text = typeof message.content === 'string' ? message.content : (message.refusal ?? '');
  const usage = chatUsage(body.usage);
  return {
    message: { role: 'assistant', content: text, toolCalls },
    stopReason: message.refusal ? 'refusal' : chatStopReason(choice.finish_reason, toolCalls.length > 0),
    ...(typeof choice.finish_reason === 'string' ? { rawStopReason: choice.finish_reason } : {}),
    ...(usage ? { usage } : {}),
  };
}
