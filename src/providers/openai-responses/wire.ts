import {
  type ChatMessage,
  type ContentPart,
  type ModelRequest,
  type ModelResponse,
  parseToolArguments,
  type StopReason,
  type ToolCall,
  type ToolResultMessage,
  type Usage,
} from '../../agent/model.js';
import { toStrictSchema } from '../openai/strict.js';
import { dataUrl } from '../openai/wire.js';
import { objectSchema, resultText, syntheticCallId, systemText } from '../shared/tools.js';

/** Responses API request body (platform.openai.com/docs/api-reference/responses/create). */
export function responsesRequestBody(
  model: string,
  request: ModelRequest,
  options: { strictTools: boolean; stream: boolean },
): Record<string, unknown> {
  const body: Record<string, unknown> = { model, input: inputItems(request.messages) };
  const instructions = systemText(request.messages);
  if (instructions !== undefined) body.instructions = instructions;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => {
      const parameters = objectSchema(tool.inputSchema);
      const strictParameters = options.strictTools ? toStrictSchema(parameters) : undefined;
      return {
        type: 'function',
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: strictParameters ?? parameters,
        // The Responses API defaults `strict` to true; say what we mean either way.
        strict: strictParameters !== undefined,
      };
    });
    const choice = request.toolChoice;
    if (choice)
      body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (options.stream) body.stream = true;
  return body;
}

function inputContent(content: string | readonly ContentPart[]) {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text'
      ? { type: 'input_text', text: part.text }
      : { type: 'input_image', image_url: dataUrl(part) },
  );
}

function inputItems(messages: readonly ChatMessage[]): unknown[] {
  const items: unknown[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break; // hoisted to `instructions`
      case 'user':
        items.push({ role: 'user', content: inputContent(message.content) });
        break;
      case 'assistant':
        if (message.content !== '') items.push({ role: 'assistant', content: message.content });
        // Item ids (`fc_...`) are left out: sent without their reasoning items they would be rejected.
        for (const call of message.toolCalls) {
          items.push({
            type: 'function_call',
            call_id: call.id,
            name: call.name,
            arguments: JSON.stringify(call.arguments),
          });
        }
        break;
      case 'tool':
        items.push({
          type: 'function_call_output',
          call_id: message.toolCallId,
          output: callOutput(message),
        });
        break;
    }
  }
  return items;
}

/** Text-only results stay a string; results with images become input_text/input_image parts. */
function callOutput(result: ToolResultMessage) {
  if (typeof result.content === 'string' || result.content.every((part) => part.type === 'text')) {
    return resultText(result);
  }
  const parts = inputContent(result.content) as unknown[];
  return result.isError
    ? [{ type: 'input_text', text: resultText({ ...result, content: '' }) }, ...parts]
    : parts;
}

export function responsesUsage(usage: any): Usage | undefined {
  if (!usage || typeof usage.input_tokens !== 'number') return undefined;
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens ?? 0 };
}

/** `status` plus `incomplete_details.reason` -> StopReason. */
export function responsesStopReason(response: any, hasCalls: boolean): { stop: StopReason; raw?: string } {
  const status = response?.status;
  if (status === 'incomplete') {
    const reason = response?.incomplete_details?.reason;
    const stop =
      reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : 'other';
    return { stop, raw: String(reason ?? status) };
  }
  return { stop: hasCalls ? 'tool_calls' : status === 'completed' ? 'stop' : 'other', raw: String(status) };
}

function functionCall(item: any): ToolCall {
  return {
    id: typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : syntheticCallId('call_'),
    name: String(item.name ?? ''),
    ...parseToolArguments(item.arguments),
  };
}

/** A `response` object -> ModelResponse. */
export function responsesResponse(body: any): ModelResponse | undefined {
  if (!Array.isArray(body?.output)) return undefined;
  let text = '';
  let refused = false;
  const toolCalls: ToolCall[] = [];
  for (const item of body.output) {
    if (item?.type === 'function_call') toolCalls.push(functionCall(item));
    if (item?.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (part?.type === 'output_text') text += part.text ?? '';
      if (part?.type === 'refusal') {
        text += part.refusal ?? '';
        refused = true;
      }
    }
  }
  const { stop, raw } = responsesStopReason(body, toolCalls.length > 0);
  const usage = responsesUsage(body.usage);
  return {
    message: { role: 'assistant', content: text, toolCalls },
    stopReason: refused ? 'refusal' : stop,
    ...(raw === undefined ? {} : { rawStopReason: raw }),
    ...(usage ? { usage } : {}),
  };
}
