import { fragments, type SseEvent, type WireFormat, type WireTurn } from './types.js';

function anthropicError(status: number, message: string) {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status >= 500
          ? 'api_error'
          : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}

/**
 * As the real API: max_tokens required, roles alternate starting with user, and every tool_use is
 * answered by a tool_result at the start of the next user message.
 */
function validateMessages(body: any): string | undefined {
  if (typeof body?.model !== 'string') return 'model: Field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return 'messages: at least one message is required';
  let pending: string[] = [];
  for (const [i, message] of body.messages.entries()) {
    if (message.role !== (i % 2 === 0 ? 'user' : 'assistant')) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const blocks: any[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: content must be non-empty`;
    for (const block of blocks) {
      if (block.type === 'text' && block.text === '')
        return `messages.${i}: text content blocks must be non-empty`;
    }
    const results = blocks.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id);
    const leading = blocks.findIndex((block) => block.type !== 'tool_result');
    if (results.length > 0 && leading !== -1 && leading < results.length) {
      return `messages.${i}: tool_result blocks must come first in the user message`;
    }
    const missing = pending.filter((id) => !results.includes(id));
    if (missing.length > 0) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`;
    }
    const unknown = results.find((id) => !pending.includes(id));
    if (unknown)
      return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unknown}`;
    pending = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id);
  }
  for (const tool of body.tools ?? []) {
    if (tool.input_schema?.type !== 'object') return "tools.0.input_schema.type: Input should be 'object'";
  }
  return undefined;
}

function contentBlocks(turn: WireTurn) {
  return [
    ...(turn.text === '' ? [] : [{ type: 'text', text: turn.text }]),
    ...turn.calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.value })),
  ];
}

function stopReason(turn: WireTurn): string {
  return turn.stopReason ?? (turn.calls.length > 0 ? 'tool_use' : 'end_turn');
}

function message(turn: WireTurn) {
  return {
    id: turn.nextId('msg_'),
    type: 'message',
    role: 'assistant',
    model: turn.model,
    content: contentBlocks(turn),
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: { input_tokens: turn.usage.input, output_tokens: turn.usage.output },
  };
}

function event(type: string, fields: Record<string, unknown> = {}): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

function events(turn: WireTurn): SseEvent[] {
  const start = {
    ...message(turn),
    content: [],
    stop_reason: null,
    usage: { input_tokens: turn.usage.input, output_tokens: 1 },
  };
  const out: SseEvent[] = [event('message_start', { message: start }), event('ping')];
  let index = 0;
  if (turn.text !== '') {
    out.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const text of fragments(turn.text, turn.chunkSize)) {
      out.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    }
    out.push(event('content_block_stop', { index }));
    index++;
  }
  for (const call of turn.calls) {
    const block = { type: 'tool_use', id: call.id, name: call.name, input: {} };
    out.push(event('content_block_start', { index, content_block: block }));
    for (const partial_json of fragments(call.raw, turn.chunkSize)) {
      out.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    out.push(event('content_block_stop', { index }));
    index++;
  }
  out.push(
    event('message_delta', {
      delta: { stop_reason: stopReason(turn), stop_sequence: null },
      usage: { output_tokens: turn.usage.output },
    }),
  );
  out.push(event('message_stop'));
  return out;
}

export const anthropicMessages: WireFormat = {
  callIdPrefix: 'toolu_',
  route(method, url) {
    if (method !== 'POST' || url.pathname !== '/v1/messages') return undefined;
    return { stream: false, model: '' };
  },
  apiKey: (headers) => (typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined),
  validate: validateMessages,
  errorBody: anthropicError,
  json: message,
  events,
};
