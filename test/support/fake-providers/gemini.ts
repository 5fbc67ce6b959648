import { fragments, type SseEvent, type WireFormat, type WireTurn } from './types.js';

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function geminiError(status: number, message: string) {
  return { error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN' } };
}

/** Keywords outside Gemini's Schema subset make the real API answer 400 ("Unknown name ..."). */
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

function schemaError(schema: any, path: string): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_KEYS.has(key))
      return `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`;
  }
  if (Array.isArray(schema.type)) return `Invalid value at '${path}.type': expected a single type`;
  if (Array.isArray(schema.enum) && schema.enum.some((value: unknown) => typeof value !== 'string')) {
    return `Invalid value at '${path}.enum': enum values must be strings`;
  }
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const error = schemaError(child, `${path}.properties[${name}]`);
    if (error) return error;
  }
  for (const [i, child] of (schema.anyOf ?? []).entries()) {
    const error = schemaError(child, `${path}.any_of[${i}]`);
    if (error) return error;
  }
  return schemaError(schema.items, `${path}.items`);
}

/** Function responses must answer the previous model turn's calls: same count, names in the same order. */
function validateGenerate(body: any): string | undefined {
  if (!Array.isArray(body?.contents) || body.contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  let calls: string[] = [];
  for (const [i, content] of body.contents.entries()) {
    if (content.role !== 'user' && content.role !== 'model')
      return `contents[${i}].role must be user or model`;
    const parts: any[] = content.parts ?? [];
    if (parts.length === 0)
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
    const responses = parts.filter((part) => part.functionResponse).map((part) => part.functionResponse.name);
    if (calls.length > 0 || responses.length > 0) {
      if (responses.join(',') !== calls.join(',')) {
        return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
      }
    }
    calls = parts.filter((part) => part.functionCall).map((part) => part.functionCall.name);
  }
  for (const [t, tool] of (body.tools ?? []).entries()) {
    for (const [f, declaration] of (tool.functionDeclarations ?? []).entries()) {
      const error = schemaError(declaration.parameters, `tools[${t}].function_declarations[${f}].parameters`);
      if (error) return error;
    }
  }
  return undefined;
}

function finishReason(turn: WireTurn): string {
  return turn.stopReason ?? 'STOP';
}

function callPart(call: WireTurn['calls'][number], withId: boolean) {
  return { functionCall: { ...(withId ? { id: call.id } : {}), name: call.name, args: call.value } };
}

function usageMetadata(turn: WireTurn) {
  const { input, output } = turn.usage;
  return { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
}

function responseChunk(turn: WireTurn, parts: unknown[], final: boolean) {
  return {
    candidates: [
      { content: { role: 'model', parts }, ...(final ? { finishReason: finishReason(turn) } : {}), index: 0 },
    ],
    ...(final ? { usageMetadata: usageMetadata(turn) } : {}),
    modelVersion: turn.model,
  };
}

export function geminiFormat(withIds: boolean): WireFormat {
  return {
    callIdPrefix: 'gemini_fake_',
    route(method, url) {
      const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
      if (method !== 'POST' || !match) return undefined;
      const stream = match[2] === 'streamGenerateContent';
      if (stream && url.searchParams.get('alt') !== 'sse') return undefined; // we only speak SSE
      return { stream, model: decodeURIComponent(match[1]!) };
    },
    apiKey: (headers, url) =>
      (typeof headers['x-goog-api-key'] === 'string' ? headers['x-goog-api-key'] : undefined) ??
      url.searchParams.get('key') ??
      undefined,
    validate: validateGenerate,
    errorBody: geminiError,
    json: (turn) =>
      responseChunk(
        turn,
        [
          ...(turn.text === '' ? [] : [{ text: turn.text }]),
          ...turn.calls.map((call) => callPart(call, withIds)),
        ],
        true,
      ),
    events(turn): SseEvent[] {
      // Text streams in pieces; each function call arrives whole in its own chunk (as Gemini does).
      const chunks: unknown[][] = fragments(turn.text, turn.chunkSize).map((text) => [{ text }]);
      for (const call of turn.calls) chunks.push([callPart(call, withIds)]);
      if (chunks.length === 0) chunks.push([]);
      return chunks.map((parts, i) => ({
        data: JSON.stringify(responseChunk(turn, parts, i === chunks.length - 1)),
      }));
    },
  };
}
