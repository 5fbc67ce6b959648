import { bearer, openaiError } from './openai.js';
import { fragments, type SseEvent, type WireFormat, type WireTurn } from './types.js';

/** A function_call_output must answer a function_call that came earlier in `input`. */
function validateResponses(body: any): string | undefined {
  if (typeof body?.model !== 'string') return 'Missing required parameter: model.';
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) return "Invalid type for 'input'.";
  const calls = new Set<string>();
  for (const [i, item] of (Array.isArray(body.input) ? body.input : []).entries()) {
    if (item.type === 'function_call') {
      if (typeof item.arguments !== 'string') return `input[${i}].arguments must be a string`;
      calls.add(item.call_id);
    }
    if (item.type === 'function_call_output') {
      if (!calls.has(item.call_id))
        return `No tool call found for function call output with call_id ${item.call_id}.`;
      if (typeof item.output !== 'string' && !Array.isArray(item.output)) return `input[${i}].output`;
    }
  }
  for (const tool of body.tools ?? []) {
    if (tool.type !== 'function' || typeof tool.name !== 'string')
      return "Missing required parameter: 'tools[0].name'.";
  }
  return undefined;
}

interface Item {
  readonly item: Record<string, unknown>;
  readonly deltas: SseEvent[];
  readonly done: Record<string, unknown>;
}

function outputItems(turn: WireTurn): Item[] {
  const items: Item[] = [];
  if (turn.text !== '') {
    const id = turn.nextId('msg_');
    const part = { type: 'output_text', text: turn.text, annotations: [] };
    const output_index = items.length;
    items.push({
      item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      deltas: fragments(turn.text, turn.chunkSize).map((delta) =>
        event('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta }),
      ),
      done: { id, type: 'message', status: 'completed', role: 'assistant', content: [part] },
    });
  }
  for (const call of turn.calls) {
    const id = turn.nextId('fc_');
    const output_index = items.length;
    const base = { id, type: 'function_call', call_id: call.id, name: call.name };
    items.push({
      item: { ...base, arguments: '', status: 'in_progress' },
      deltas: [
        ...fragments(call.raw, turn.chunkSize).map((delta) =>
          event('response.function_call_arguments.delta', { item_id: id, output_index, delta }),
        ),
        event('response.function_call_arguments.done', { item_id: id, output_index, arguments: call.raw }),
      ],
      done: { ...base, arguments: call.raw, status: 'completed' },
    });
  }
  return items;
}

function event(type: string, fields: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

function responseObject(turn: WireTurn, id: string, items: Item[], final: boolean) {
  const incomplete = final && turn.stopReason !== undefined;
  const status = !final ? 'in_progress' : incomplete ? 'incomplete' : 'completed';
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: turn.model,
    status,
    incomplete_details: incomplete ? { reason: turn.stopReason } : null,
    output: final ? items.map((item) => item.done) : [],
    usage: final
      ? {
          input_tokens: turn.usage.input,
          output_tokens: turn.usage.output,
          total_tokens: turn.usage.input + turn.usage.output,
        }
      : null,
  };
}

function events(turn: WireTurn): SseEvent[] {
  const id = turn.nextId('resp_');
  const items = outputItems(turn);
  const out: SseEvent[] = [event('response.created', { response: responseObject(turn, id, items, false) })];
  items.forEach((item, output_index) => {
    out.push(event('response.output_item.added', { output_index, item: item.item }));
    out.push(...item.deltas);
    out.push(event('response.output_item.done', { output_index, item: item.done }));
  });
  const final = responseObject(turn, id, items, true);
  out.push(
    event(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final }),
  );
  // Sequence numbers as the real stream carries them.
  return out.map((e, sequence_number) => ({
    ...e,
    data: JSON.stringify({ ...JSON.parse(e.data), sequence_number }),
  }));
}

export const openaiResponses: WireFormat = {
  callIdPrefix: 'call_',
  route(method, url) {
    if (method !== 'POST' || !url.pathname.endsWith('/responses')) return undefined;
    return { stream: false, model: '' };
  },
  apiKey: (headers) => bearer(headers),
  validate: validateResponses,
  errorBody: openaiError,
  json: (turn) => responseObject(turn, turn.nextId('resp_'), outputItems(turn), true),
  events,
};
