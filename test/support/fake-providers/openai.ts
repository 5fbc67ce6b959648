import { fragments, type SseEvent, type WireFormat, type WireTurn } from './types.js';

const bearer = (headers: { authorization?: string | undefined }) =>
  headers.authorization?.replace(/^Bearer\s+/i, '') || undefined;

function openaiError(status: number, message: string) {
  return {
    error: {
      message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: null,
    },
  };
}

/** Tool messages must answer the tool_calls of the assistant message right before them, every one. */
function validateChat(body: any): string | undefined {
  if (typeof body?.model !== 'string') return 'you must provide a model parameter';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return "'messages' must be a non-empty array";
  let open: Set<string> | undefined;
  for (const [i, message] of body.messages.entries()) {
    if (message.role === 'tool') {
      if (!open?.delete(message.tool_call_id)) {
        return `Invalid parameter: messages[${i}] with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
      }
      if (typeof message.content !== 'string' && !Array.isArray(message.content))
        return `messages[${i}].content`;
      continue;
    }
    if (open && open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${[...open].join(', ')}`;
    }
    open = undefined;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      open = new Set(message.tool_calls.map((call: any) => call.id));
      for (const call of message.tool_calls) {
        if (typeof call.function?.arguments !== 'string')
          return `messages[${i}].tool_calls arguments must be a string`;
      }
    }
  }
  for (const tool of body.tools ?? []) {
    if (tool.type !== 'function' || typeof tool.function?.name !== 'string')
      return 'tools[].function.name is required';
  }
  return undefined;
}

function finishReason(turn: WireTurn): string {
  return turn.stopReason ?? (turn.calls.length > 0 ? 'tool_calls' : 'stop');
}

function usage(turn: WireTurn) {
  const { input, output } = turn.usage;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

function completion(turn: WireTurn) {
  return {
    id: turn.nextId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: turn.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text === '' && turn.calls.length > 0 ? null : turn.text,
          refusal: null,
          ...(turn.calls.length > 0
            ? {
                tool_calls: turn.calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.raw },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason(turn),
      },
    ],
    usage: usage(turn),
  };
}

/** chat.completion.chunk events: role, text pieces, each call's header then argument pieces, finish, usage, [DONE]. */
function chunks(turn: WireTurn): SseEvent[] {
  const id = turn.nextId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: unknown, finish: string | null = null, extra: object = {}) => ({
    data: JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model: turn.model,
      choices: delta === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    }),
  });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of fragments(turn.text, turn.chunkSize)) events.push(chunk({ content: piece }));
  turn.calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of fragments(call.raw, turn.chunkSize)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, finishReason(turn)));
  events.push(chunk(undefined, null, { usage: usage(turn) }));
  events.push({ data: '[DONE]' });
  return events;
}

export const openaiChat: WireFormat = {
  callIdPrefix: 'call_',
  route(method, url) {
    if (method !== 'POST' || !url.pathname.endsWith('/chat/completions')) return undefined;
    return { stream: false, model: '' }; // stream and model come from the body
  },
  apiKey: (headers) => bearer(headers),
  validate: validateChat,
  errorBody: openaiError,
  json: completion,
  events: chunks,
};

export { bearer, openaiError };
