/** What each provider puts on the wire: request bodies, headers and paths, asserted on the fake's records. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, ModelRequest } from '../../src/agent/model.js';
import { ModelError } from '../../src/agent/model.js';
import { createModel } from '../../src/providers/index.js';
import {
  type FakeProvider,
  type FakeProviderKind,
  startFakeProvider,
} from '../support/fake-providers/index.js';
import { modelFor, PIXEL, turn, user, weatherTool } from './helpers.js';

const fakes: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});
async function start(kind: FakeProviderKind, replies = 1, geminiIds = false) {
  const fake = await startFakeProvider(kind, Array(replies).fill({ text: 'ok' }), {
    geminiIds,
    apiKey: 'sk-test',
  });
  fakes.push(fake);
  return fake;
}

/** A finished round of two parallel calls: one result with an image, one error. */
const history: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  user('weather in Oslo and Lima'),
  {
    role: 'assistant',
    content: 'Looking.',
    toolCalls: [
      { id: 'call_1', name: 'weather__get_weather', arguments: { city: 'Oslo' } },
      { id: 'call_2', name: 'weather__get_weather', arguments: { city: 'Lima' } },
    ],
  },
  // Results arrive out of order: providers correlate by id (Gemini reorders to call order).
  {
    role: 'tool',
    toolCallId: 'call_2',
    name: 'weather__get_weather',
    content: 'station offline',
    isError: true,
  },
  {
    role: 'tool',
    toolCallId: 'call_1',
    name: 'weather__get_weather',
    content: [
      { type: 'text', text: '-3C' },
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
    ],
  },
];
const request: ModelRequest = { messages: history, tools: [weatherTool], toolChoice: 'auto', maxTokens: 300 };

describe('OpenAI Chat Completions wire', () => {
  it('sends tools, tool_calls as JSON strings, tool messages and images after them', async () => {
    const fake = await start('openai');
    await modelFor(fake).generate(request);
    const { body, headers, path } = fake.requests[0]!;
    expect(path).toBe('/v1/chat/completions');
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: weatherTool.name,
          description: weatherTool.description,
          parameters: weatherTool.inputSchema,
        },
      },
    ]);
    expect(body.tool_choice).toBe('auto');
    expect(body.max_completion_tokens).toBe(300);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'weather in Oslo and Lima' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'weather__get_weather', arguments: '{"city":"Oslo"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'weather__get_weather', arguments: '{"city":"Lima"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_2', content: '[tool error] station offline' },
      { role: 'tool', tool_call_id: 'call_1', content: '-3C\n[1 image(s) attached in the next message]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images from tool weather__get_weather (call_1):' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
        ],
      },
    ]);
  });

  it('asks for usage in streams and names a forced tool', async () => {
    const fake = await start('openai');
    await turn(modelFor(fake), { ...request, toolChoice: { name: weatherTool.name } }, true);
    const { body } = fake.requests[0]!;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: weatherTool.name } });
  });

  it('strict mode closes objects, requires every property and makes optional ones nullable', async () => {
    const fake = await start('openai');
    const mapTool = {
      name: 'kv__set',
      inputSchema: {
        type: 'object',
        properties: { values: { type: 'object', additionalProperties: { type: 'string' } } },
      },
    };
    await modelFor(fake, { strictTools: true }).generate({ ...request, tools: [weatherTool, mapTool] });
    const [weather, map] = fake.requests[0]!.body.tools;
    expect(weather.function.strict).toBe(true);
    expect(weather.function.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] },
      },
      required: ['city', 'unit'],
      additionalProperties: false,
    });
    // An open map cannot be strict: sent as is, without `strict`, so it keeps its meaning.
    expect(map.function.strict).toBeUndefined();
    expect(map.function.parameters).toEqual(mapTool.inputSchema);
  });

  it('reads compatible-server chunks that carry whole calls without index or id', async () => {
    // Shape some OpenAI-compatible servers stream: one chunk per call, no `index`, sometimes no `id`.
    const chunks = [
      {
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [{ id: 'c1', function: { name: 'a', arguments: '{"n":1}' } }],
            },
          },
        ],
      },
      { choices: [{ index: 0, delta: { tool_calls: [{ function: { name: 'b', arguments: '{"n":2}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ];
    const sse = `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
    const fetch = async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
    const model = createModel('ollama:llama3.1:8b', {}, { fetch });
    expect(model.id).toBe('ollama:llama3.1:8b');
    const { response } = await turn(model, { messages: [user('x')] }, true);
    expect(response.message.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['a', { n: 1 }],
      ['b', { n: 2 }],
    ]);
    expect(response.message.toolCalls[0]!.id).toBe('c1');
    expect(response.message.toolCalls[1]!.id).toMatch(/^call_\w+$/);
  });
});

describe('OpenAI Responses wire', () => {
  it('sends instructions, function_call and function_call_output items (images as input_image)', async () => {
    const fake = await start('openai-responses');
    await modelFor(fake).generate(request);
    const { body, path } = fake.requests[0]!;
    expect(path).toBe('/v1/responses');
    expect(body.instructions).toBe('Be brief.');
    expect(body.max_output_tokens).toBe(300);
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: weatherTool.name,
        description: weatherTool.description,
        parameters: weatherTool.inputSchema,
        strict: false,
      },
    ]);
    expect(body.input).toEqual([
      { role: 'user', content: 'weather in Oslo and Lima' },
      { role: 'assistant', content: 'Looking.' },
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'weather__get_weather',
        arguments: '{"city":"Oslo"}',
      },
      {
        type: 'function_call',
        call_id: 'call_2',
        name: 'weather__get_weather',
        arguments: '{"city":"Lima"}',
      },
      { type: 'function_call_output', call_id: 'call_2', output: '[tool error] station offline' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: '-3C' },
          { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}` },
        ],
      },
    ]);
  });
});

describe('Anthropic Messages wire', () => {
  it('hoists system, merges parallel results into one user message with is_error and image blocks', async () => {
    const fake = await start('anthropic');
    await modelFor(fake).generate({ ...request, maxTokens: undefined });
    const { body, headers, path } = fake.requests[0]!;
    expect(path).toBe('/v1/messages');
    expect(headers['x-api-key']).toBe('sk-test');
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(body.system).toBe('Be brief.');
    expect(body.max_tokens).toBe(4096);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.tools).toEqual([
      { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.inputSchema },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in Oslo and Lima' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'call_1', name: 'weather__get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'call_2', name: 'weather__get_weather', input: { city: 'Lima' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_2', content: 'station offline', is_error: true },
          {
            type: 'tool_result',
            tool_use_id: 'call_1',
            content: [
              { type: 'text', text: '-3C' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
            ],
          },
        ],
      },
    ]);
  });
});

describe('Gemini wire', () => {
  it('sends functionResponse parts in call order, output/error, inlineData, and no made-up ids', async () => {
    const fake = await start('gemini');
    // Ids Gemini never sent (made up by the provider) and results out of call order.
    const renamed: Record<string, string> = { call_1: 'gemini-call-1-0', call_2: 'gemini-call-1-1' };
    const synthetic = history.map((message): ChatMessage => {
      if (message.role === 'tool') return { ...message, toolCallId: renamed[message.toolCallId]! };
      if (message.role !== 'assistant') return message;
      return { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: renamed[call.id]! })) };
    });
    await modelFor(fake).generate({ ...request, messages: synthetic, toolChoice: 'required' });
    const { body, headers, path } = fake.requests[0]!;
    expect(path).toBe('/v1beta/models/test-model:generateContent');
    expect(headers['x-goog-api-key']).toBe('sk-test');
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(body.generationConfig).toEqual({ maxOutputTokens: 300 });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather in Oslo and Lima' }] },
      {
        role: 'model',
        parts: [
          { text: 'Looking.' },
          { functionCall: { name: 'weather__get_weather', args: { city: 'Oslo' } } },
          { functionCall: { name: 'weather__get_weather', args: { city: 'Lima' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'weather__get_weather', response: { output: '-3C' } } },
          { functionResponse: { name: 'weather__get_weather', response: { error: 'station offline' } } },
          { inlineData: { mimeType: 'image/png', data: PIXEL } },
        ],
      },
    ]);
  });

  it('echoes real ids and thought signatures back', async () => {
    const fake = await start('gemini', 1, true);
    const messages: ChatMessage[] = [
      user('x'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'fc-9', name: 'a', arguments: {}, signature: 'c2ln' }],
      },
      { role: 'tool', toolCallId: 'fc-9', name: 'a', content: 'done' },
    ];
    await modelFor(fake).generate({ messages });
    expect(fake.requests[0]!.body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [{ functionCall: { id: 'fc-9', name: 'a', args: {} }, thoughtSignature: 'c2ln' }],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'fc-9', name: 'a', response: { output: 'done' } } }],
      },
    ]);
  });

  it('synthesises stable ids for calls without one, and streams via alt=sse', async () => {
    const fake = await startFakeProvider('gemini', [
      {
        toolCalls: [
          { name: 'a', arguments: { n: 1 } },
          { name: 'a', arguments: { n: 2 } },
        ],
      },
    ]);
    fakes.push(fake);
    const messages: ChatMessage[] = [
      user('x'),
      { role: 'assistant', content: 'earlier', toolCalls: [] },
      user('y'),
    ];
    const { response } = await turn(modelFor(fake), { messages }, true);
    expect(fake.requests[0]!.path).toBe('/v1beta/models/test-model:streamGenerateContent?alt=sse');
    expect(response.message.toolCalls.map((call) => call.id)).toEqual(['gemini-call-1-0', 'gemini-call-1-1']);
  });

  it('converts JSON Schema to the subset the API accepts (the fake refuses unknown keywords)', async () => {
    const fake = await start('gemini');
    const tool = {
      name: 'orders__find',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { status: { type: 'string', enum: ['open', 'closed'] } },
        properties: { status: { $ref: '#/$defs/status' }, note: { type: ['string', 'null'] } },
        additionalProperties: false,
      },
    };
    await modelFor(fake).generate({ messages: [user('x')], tools: [tool] });
    expect(fake.requests[0]!.body.tools[0].functionDeclarations[0].parameters).toEqual({
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['open', 'closed'] },
        note: { type: 'string', nullable: true },
      },
    });
  });
});

describe('every provider', () => {
  it.each([
    'openai',
    'openai-responses',
    'anthropic',
    'gemini',
  ] as const)('%s refuses an invalid tool name before sending anything', async (kind) => {
    const fake = await start(kind);
    const bad = { name: 'weather.get weather', inputSchema: { type: 'object' } };
    const error = await modelFor(fake)
      .generate({ messages: [user('x')], tools: [bad] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'config' });
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    'openai',
    'openai-responses',
    'anthropic',
    'gemini',
  ] as const)('%s sends the API key its way', async (kind) => {
    const fake = await start(kind);
    await expect(modelFor(fake).generate({ messages: [user('x')] })).resolves.toMatchObject({
      stopReason: 'stop',
    });
    const keyVar = Object.keys(fake.env).find((name) => name.endsWith('_API_KEY'))!;
    const wrongKey = createModel(fake.spec(), { ...fake.env, [keyVar]: 'wrong' }, { maxRetries: 0 });
    const rejected = await wrongKey.generate({ messages: [user('x')] }).catch((e) => e);
    expect(rejected).toMatchObject({ status: 401, code: 'http', provider: kind });
    expect(rejected.message).toContain('invalid api key');
  });
});
