/**
 * The offline demo model: a small deterministic rule engine, not a language model and not a fake of any
 * provider. It lets `agentforge demo` show the whole loop with no API key and no network. Its id is
 * `demo:offline-rules` and every answer says it came from the demo model.
 *
 * Rules: on a new task it calls every tool whose name or description shares words with the task and whose
 * required arguments it can fill from the task (ids from digit runs, places after "in"/"for", enum values
 * named in the task); after results arrive, it calls tools not yet used whose required arguments match
 * fields of those results and are not already in the task (an order's `trackingNumber` feeds the logistics
 * tool); then it answers with a
 * summary of the results.
 */
import {
  type ChatMessage,
  type ChatModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  StreamAccumulator,
  type ToolCall,
  type ToolDefinition,
} from './model.js';
import { isRecord } from '../util/record.js';

export const DEMO_MODEL_ID = 'demo:offline-rules';
export const DEMO_MODEL_LABEL = 'offline demo model (rule-based, not an LLM)';

const STOP_WORDS = new Set(
  'a an and are at be by can check do does for from get give how i in is it me my of on or please show status the this to tool what when where which with you your'.split(
    ' ',
  ),
);

/** Verbs that say how, not what: `request_refund` is about refunds, `track_shipment` about shipments. */
const GENERIC_VERBS = new Set(
  'add create delete fetch find lookup look make query read remove request run search send set start track update'.split(
    ' ',
  ),
);

export class DemoModel implements ChatModel {
  readonly id = DEMO_MODEL_ID;
  #calls = 0;

  async generate(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const task = lastUserText(request.messages);
    const results = resultsSinceTask(request.messages);
    const used = new Set(calledSinceTask(request.messages));
    const tools = request.tools ?? [];
    const calls =
      results.length === 0 ? this.#firstCalls(task, tools) : this.#followUpCalls(task, tools, results, used);
    if (calls.length > 0) {
      return { message: { role: 'assistant', content: '', toolCalls: calls }, stopReason: 'tool_calls' };
    }
    return { message: { role: 'assistant', content: answer(results), toolCalls: [] }, stopReason: 'stop' };
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const response = await this.generate(request);
    const acc = new StreamAccumulator();
    for (const word of response.message.content.match(/\S+\s*/g) ?? []) yield acc.textDelta(word);
    for (const [index, call] of response.message.toolCalls.entries()) {
      yield acc.startToolCall(index, call.id, call.name);
      yield acc.toolCallDelta(index, JSON.stringify(call.arguments));
      yield acc.endToolCall(index);
    }
    yield acc.finish(response.stopReason);
  }

  #firstCalls(task: string, tools: readonly ToolDefinition[]): ToolCall[] {
    const words = wordsOf(task);
    const out: ToolCall[] = [];
    for (const tool of tools) {
      // Every word of the tool's own name (after the server prefix) must occur in the task.
      const nameWords = new Set(
        [...wordsOf(toolPart(tool.name).replace(/[_-]/g, ' '))].filter((w) => !GENERIC_VERBS.has(w)),
      );
      if (nameWords.size === 0 || ![...nameWords].every((w) => words.has(w))) continue;
      const args = fillFromTask(task, tool.inputSchema);
      if (args) out.push(this.#call(tool.name, args));
    }
    return out;
  }

  #followUpCalls(
    task: string,
    tools: readonly ToolDefinition[],
    results: readonly ToolResultView[],
    used: ReadonlySet<string>,
  ): ToolCall[] {
    const fields = new Map<string, unknown>();
    for (const result of results) if (!result.isError) collectFields(result.text, fields);
    const words = wordsOf(task);
    const out: ToolCall[] = [];
    for (const tool of tools) {
      if (used.has(tool.name)) continue;
      const required = requiredOf(tool.inputSchema);
      if (required.length === 0 || !required.every((name) => fields.has(name))) continue;
      // Only chain on something learned: at least one argument the task itself did not contain.
      if (required.every((name) => task.includes(String(fields.get(name))))) continue;
      // Arguments come from results here, so a word of the description shared with the task is enough.
      const toolWords = wordsOf(`${toolPart(tool.name).replace(/[_-]/g, ' ')} ${tool.description ?? ''}`);
      if (![...toolWords].some((w) => words.has(w))) continue;
      out.push(this.#call(tool.name, Object.fromEntries(required.map((name) => [name, fields.get(name)]))));
    }
    return out;
  }

  #call(name: string, args: Record<string, unknown>): ToolCall {
    return { id: `demo_call_${++this.#calls}`, name, arguments: args };
  }
}

interface ToolResultView {
  readonly name: string;
  readonly text: string;
  readonly isError: boolean;
}

/** `orders__get_order` -> `get_order`: the server prefix says nothing about what the tool does. */
function toolPart(llmName: string): string {
  const at = llmName.indexOf('__');
  return at < 0 ? llmName : llmName.slice(at + 2);
}

function wordsOf(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z]{3,}/g) ?? [];
  return new Set(words.map((w) => w.replace(/(ies|es|s)$/, '')).filter((w) => !STOP_WORDS.has(w)));
}

function requiredOf(schema: Readonly<Record<string, unknown>>): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === 'string')
    : [];
}

/** Fills every required argument from the task text, or returns undefined when one cannot be filled. */
function fillFromTask(
  task: string,
  schema: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown }>;
  const args: Record<string, unknown> = {};
  for (const name of requiredOf(schema)) {
    const value = valueFor(task, name, properties[name] ?? {});
    if (value === undefined) return undefined;
    args[name] = value;
  }
  return args;
}

function valueFor(task: string, name: string, property: { type?: unknown; enum?: unknown }): unknown {
  if (Array.isArray(property.enum)) {
    return property.enum.find((v) => typeof v === 'string' && task.toLowerCase().includes(v.toLowerCase()));
  }
  const digits = task.match(/\b[A-Z]*\d[\w-]*\b/)?.[0];
  if (property.type === 'number' || property.type === 'integer') {
    const number = task.match(/-?\d+(\.\d+)?/)?.[0];
    return number === undefined ? undefined : Number(number);
  }
  if (/id$|number$|^no$|code$/i.test(name)) {
    // `orderId` is filled from the task only when the task talks about orders.
    const stem = name.replace(/(id|number|no|code)$/i, '').toLowerCase();
    return stem === '' || wordsOf(task).has(stem.replace(/(ies|es|s)$/, '')) ? digits : undefined;
  }
  if (/city|location|place|region/i.test(name)) {
    return task.match(/\b(?:in|for|at)\s+([A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)*)/u)?.[1];
  }
  if (/reason|message|query|text|note/i.test(name)) return task;
  return undefined;
}

/** Fields of JSON objects found in a result's text (structured content is sent as JSON). */
function collectFields(text: string, fields: Map<string, unknown>): void {
  for (const candidate of text.match(/\{[\s\S]*\}/g) ?? []) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (isRecord(value)) {
        for (const [key, field] of Object.entries(value)) {
          if (typeof field === 'string' || typeof field === 'number') fields.set(key, field);
        }
      }
    } catch {
      // Not JSON: nothing to learn from it.
    }
  }
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    return typeof message.content === 'string'
      ? message.content
      : message.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
  }
  return '';
}

function sinceTask(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const start = messages.findLastIndex((m) => m.role === 'user');
  return messages.slice(start + 1);
}

function resultsSinceTask(messages: readonly ChatMessage[]): ToolResultView[] {
  return sinceTask(messages).flatMap((m) =>
    m.role === 'tool'
      ? [
          {
            name: m.name,
            text:
              typeof m.content === 'string'
                ? m.content
                : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'),
            isError: m.isError === true,
          },
        ]
      : [],
  );
}

function calledSinceTask(messages: readonly ChatMessage[]): string[] {
  return sinceTask(messages).flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.name) : []));
}

function answer(results: readonly ToolResultView[]): string {
  if (results.length === 0) {
    return `[${DEMO_MODEL_LABEL}] No tool matched the task, so there is nothing to report. Set AGENTFORGE_MODEL for a real model.`;
  }
  const lines = results.map(
    (r) => `- ${r.name}${r.isError ? ' (error)' : ''}: ${r.text.replace(/\s+/g, ' ').trim()}`,
  );
  return `[${DEMO_MODEL_LABEL}] The tools returned:\n${lines.join('\n')}`;
}
