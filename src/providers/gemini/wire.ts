import {
  type AssistantMessage,
  type ChatMessage,
  type ContentPart,
  type ModelRequest,
  type ModelResponse,
  parseToolArguments,
  type StopReason,
  type ToolCall,
  type ToolChoice,
  type ToolResultMessage,
  type Usage,
} from '../../agent/model.js';
import { imagesOf, objectSchema, systemText, textOf } from '../shared/tools.js';
import { toGeminiSchema } from './schema.js';

/** Ids we made up for calls Gemini sent without one; they are never sent back to Gemini. */
const SYNTHETIC_ID_PREFIX = 'gemini-call-';

/** generateContent request body (ai.google.dev/api/generate-content). */
export function generateContentBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: geminiContents(request.messages) };
  const system = systemText(request.messages);
  if (system !== undefined) body.systemInstruction = { parts: [{ text: system }] };
  if (request.tools && request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => {
          const parameters = toGeminiSchema(objectSchema(tool.inputSchema));
          return {
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            ...(parameters ? { parameters } : {}),
          };
        }),
      },
    ];
    if (request.toolChoice) body.toolConfig = { functionCallingConfig: geminiToolChoice(request.toolChoice) };
  }
  const generationConfig: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) generationConfig.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

function geminiToolChoice(choice: ToolChoice) {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function geminiParts(content: string | readonly ContentPart[]): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map((part) =>
    part.type === 'text' ? { text: part.text } : { inlineData: { mimeType: part.mimeType, data: part.data } },
  );
}

/**
 * Roles are `user` and `model`. The results of one model turn's calls form one `user` content of
 * `functionResponse` parts in the order of the calls (Gemini matches them by name and order when it
 * gave no ids), followed by any images the tools returned.
 */
function geminiContents(messages: readonly ChatMessage[]): unknown[] {
  const out: { role: string; parts: unknown[] }[] = [];
  let lastAssistant: AssistantMessage | undefined;
  let results: ToolResultMessage[] = [];
  const flushResults = () => {
    if (results.length === 0) return;
    const order = (result: ToolResultMessage) => {
      const position = lastAssistant?.toolCalls.findIndex((call) => call.id === result.toolCallId) ?? -1;
      return position < 0 ? Number.MAX_SAFE_INTEGER : position;
    };
    const sorted = [...results].sort((a, b) => order(a) - order(b));
    out.push({
      role: 'user',
      parts: [
        ...sorted.map(functionResponse),
        ...sorted.flatMap((result) => geminiParts(imagesOf(result.content))),
      ],
    });
    results = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      results.push(message);
      continue;
    }
    flushResults();
    // A content with no parts is refused, so an empty message is left out.
    if (message.role === 'user' && message.content.length > 0) {
      out.push({ role: 'user', parts: geminiParts(message.content) });
    }
    if (message.role === 'assistant') {
      lastAssistant = message;
      const parts = [...geminiParts(message.content), ...message.toolCalls.map(functionCallPart)];
      if (parts.length > 0) out.push({ role: 'model', parts });
    }
  }
  flushResults();
  return out;
}

function functionCallPart(call: ToolCall) {
  return {
    functionCall: { ...realId(call.id), name: call.name, args: call.arguments },
    ...(call.signature === undefined ? {} : { thoughtSignature: call.signature }),
  };
}

/** Google's convention: the response object has `output` on success and `error` on failure. */
function functionResponse(result: ToolResultMessage) {
  const text = typeof result.content === 'string' ? result.content : textOf(result.content);
  return {
    functionResponse: {
      ...realId(result.toolCallId),
      name: result.name,
      response: result.isError ? { error: text } : { output: text },
    },
  };
}

function realId(id: string): { id?: string } {
  return id.startsWith(SYNTHETIC_ID_PREFIX) ? {} : { id };
}

export function geminiStopReason(reason: unknown, hasCalls: boolean): StopReason {
  if (hasCalls && (reason === 'STOP' || reason === undefined)) return 'tool_calls';
  if (reason === 'STOP') return 'stop';
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  if (['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII'].includes(String(reason)))
    return 'refusal';
  return 'other';
}

export function geminiUsage(usage: any): Usage | undefined {
  if (!usage || typeof usage.promptTokenCount !== 'number') return undefined;
  return { inputTokens: usage.promptTokenCount, outputTokens: usage.candidatesTokenCount ?? 0 };
}

/**
 * Older Gemini models send calls without ids. The id made up instead is stable: the turn's position in
 * the conversation and the call's position in the turn, so a replayed conversation gets the same ids.
 */
function syntheticId(turn: number, ordinal: number): string {
  return `${SYNTHETIC_ID_PREFIX}${turn}-${ordinal}`;
}

/** The turn number for synthetic ids: how many assistant turns the conversation already has. */
export function turnNumber(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** A functionCall part -> ToolCall. */
export function geminiCall(part: any, turn: number, ordinal: number): ToolCall {
  const call = part.functionCall;
  return {
    id: typeof call.id === 'string' && call.id !== '' ? call.id : syntheticId(turn, ordinal),
    name: String(call.name ?? ''),
    ...parseToolArguments(call.args),
    ...(typeof part.thoughtSignature === 'string' ? { signature: part.thoughtSignature } : {}),
  };
}

/** Visible text of a part; thought summaries (`thought: true`) are not the answer. */
export function partText(part: any): string {
  return typeof part?.text === 'string' && !part.thought ? part.text : '';
}

/** A GenerateContentResponse -> ModelResponse (first candidate). */
export function geminiResponse(body: any, turn: number): ModelResponse | undefined {
  const candidate = body?.candidates?.[0];
  if (!candidate) {
    if (!body?.promptFeedback?.blockReason) return undefined;
    const raw = String(body.promptFeedback.blockReason);
    return {
      message: { role: 'assistant', content: '', toolCalls: [] },
      stopReason: 'refusal',
      rawStopReason: raw,
    };
  }
  const parts: any[] = Array.isArray(candidate.content?.parts) ? candidate.content.parts : [];
  const toolCalls = parts
    .filter((part) => part?.functionCall)
    .map((part, ordinal) => geminiCall(part, turn, ordinal));
  const usage = geminiUsage(body.usageMetadata);
  return {
    message: { role: 'assistant', content: parts.map(partText).join(''), toolCalls },
    stopReason: geminiStopReason(candidate.finishReason, toolCalls.length > 0),
    ...(typeof candidate.finishReason === 'string' ? { rawStopReason: candidate.finishReason } : {}),
    ...(usage ? { usage } : {}),
  };
}
