import { describe, expect, it } from 'vitest';
import {
  collectResponse,
  ModelError,
  type ModelStreamEvent,
  parseToolArguments,
  StreamAccumulator,
} from '../../src/agent/model.js';
import { createModel, parseModelSpec } from '../../src/providers/index.js';
import { parseRetryAfter } from '../../src/providers/shared/http.js';
import { startFakeProvider } from '../support/fake-providers/index.js';

describe('parseToolArguments', () => {
  it('accepts objects and JSON object strings, treats empty as {}', () => {
    expect(parseToolArguments({ a: 1 })).toEqual({ arguments: { a: 1 } });
    expect(parseToolArguments('{"a":1}')).toEqual({ arguments: { a: 1 } });
    expect(parseToolArguments('')).toEqual({ arguments: {} });
    expect(parseToolArguments(undefined)).toEqual({ arguments: {} });
  });

  it('reports non-objects and broken JSON instead of throwing', () => {
    expect(parseToolArguments('[1]').invalidArguments).toEqual({
      raw: '[1]',
      error: 'arguments must be a JSON object',
    });
    expect(parseToolArguments('{"a":').invalidArguments?.error).toMatch(/^arguments are not valid JSON/);
    expect(parseToolArguments(42).invalidArguments?.raw).toBe('42');
  });
});

describe('StreamAccumulator', () => {
  it('assembles text, interleaved call fragments and ends open calls at finish', async () => {
    const acc = new StreamAccumulator();
    const events: ModelStreamEvent[] = [
      acc.textDelta('Hel'),
      acc.startToolCall(0, 'c0', 'a'),
      acc.startToolCall(1, 'c1', 'b', 'sig'),
      acc.toolCallDelta(1, '{"y":'),
      acc.toolCallDelta(0, '{"x":1}'),
      acc.toolCallDelta(1, '2}'),
      acc.endToolCall(0),
      acc.textDelta('lo'),
      acc.finish('stop', { inputTokens: 1, outputTokens: 2 }, 'end_turn'),
    ];
    async function* replay() {
      yield* events;
    }
    const response = await collectResponse(replay());
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: 'Hello',
        toolCalls: [
          { id: 'c0', name: 'a', arguments: { x: 1 } },
          { id: 'c1', name: 'b', arguments: { y: 2 }, signature: 'sig' },
        ],
      },
      stopReason: 'tool_calls', // calls were made, whatever the provider called its stop
      rawStopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 2 },
    });
  });

  it('collectResponse fails on a stream without done', async () => {
    async function* broken() {
      yield { type: 'text_delta', text: 'x' } as ModelStreamEvent;
    }
    await expect(collectResponse(broken())).rejects.toThrow(/without a done event/);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    const inTwo = new Date(Date.now() + 2_000).toUTCString();
    expect(parseRetryAfter(new Headers({ 'retry-after': inTwo }))).toBeGreaterThan(500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe('createModel', () => {
  it('parses <provider>:<model>, keeping colons in the model name', () => {
    expect(parseModelSpec('ollama:qwen2.5:7b')).toEqual({ provider: 'ollama', model: 'qwen2.5:7b' });
    expect(parseModelSpec('anthropic:claude-sonnet-4-5')).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    for (const bad of ['gpt-4o', 'nope:x', 'openai:', ':x']) {
      expect(() => parseModelSpec(bad)).toThrow(ModelError);
    }
  });

  it('names the missing credential variable', () => {
    expect(() => createModel('openai:gpt-4o', {})).toThrow(/OPENAI_API_KEY is not set/);
    expect(() => createModel('anthropic:claude-x', {})).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => createModel('gemini:gemini-2.0-flash', {})).toThrow(/GEMINI_API_KEY/);
    expect(createModel('gemini:gemini-2.0-flash', { GOOGLE_API_KEY: 'k' }).id).toBe(
      'gemini:gemini-2.0-flash',
    );
    expect(createModel('ollama:llama3.1', {}).id).toBe('ollama:llama3.1');
  });

  it('ollama: talks to http://127.0.0.1:11434/v1/chat/completions with max_tokens and no key', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      seen.push({ url: String(url), init: init! });
      return Response.json({
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      });
    };
    const model = createModel('ollama:llama3.1', {}, { fetch });
    const response = await model.generate({ messages: [{ role: 'user', content: 'x' }], maxTokens: 5 });
    expect(response.message.content).toBe('hi');
    expect(seen[0]!.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(JSON.parse(String(seen[0]!.init.body))).toMatchObject({ model: 'llama3.1', max_tokens: 5 });
    expect(new Headers(seen[0]!.init.headers).has('authorization')).toBe(false);
  });

  it('openai and openai-responses share OPENAI_* variables; a base URL alone suffices', async () => {
    await using chat = await startFakeProvider('openai', [{ text: 'from chat' }]);
    await using responses = await startFakeProvider('openai-responses', [{ text: 'from responses' }]);
    const viaChat = createModel('openai:m', { OPENAI_BASE_URL: chat.baseUrl });
    const viaResponses = createModel('openai-responses:m', responses.env);
    expect((await viaChat.generate({ messages: [{ role: 'user', content: 'x' }] })).message.content).toBe(
      'from chat',
    );
    expect(
      (await viaResponses.generate({ messages: [{ role: 'user', content: 'x' }] })).message.content,
    ).toBe('from responses');
    expect(chat.requests[0]!.headers.authorization).toBeUndefined();
  });
});
