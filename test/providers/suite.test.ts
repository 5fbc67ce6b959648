/**
 * One behaviour suite run against every provider, non-streaming and streaming, over real HTTP to the
 * local fakes of each provider's wire format.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatMessage, ModelError } from '../../src/agent/model.js';
import {
  type FakeProvider,
  type FakeProviderKind,
  type FakeScript,
  readToolResults,
  startFakeProvider,
} from '../support/fake-providers/index.js';
import { KINDS, modelFor, PIXEL, turn, user, weatherTool } from './helpers.js';

const fakes: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});
async function start(kind: FakeProviderKind, script: FakeScript, geminiIds = true) {
  const fake = await startFakeProvider(kind, script, { geminiIds, chunkSize: 5 });
  fakes.push(fake);
  return fake;
}

const longArgs = { city: 'Saint Petersburg', unit: 'c', note: 'a longer value to split into many fragments' };

describe.each(KINDS)('%s', (kind) => {
  describe.each([false, true])('stream=%s', (stream) => {
    it('returns a plain text answer', async () => {
      const fake = await start(kind, [{ text: 'Hello there, world', usage: { input: 12, output: 4 } }]);
      const { response, events } = await turn(modelFor(fake), { messages: [user('hi')] }, stream);
      expect(response.message).toEqual({ role: 'assistant', content: 'Hello there, world', toolCalls: [] });
      expect(response.stopReason).toBe('stop');
      expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 4 });
      expect(fake.requests[0]!.stream).toBe(stream);
      if (stream) {
        const deltas = events.filter((event) => event.type === 'text_delta');
        expect(deltas.length).toBeGreaterThan(1);
        expect(deltas.map((event) => event.text).join('')).toBe('Hello there, world');
      }
    });

    it('returns a single tool call with its id and arguments (streamed in fragments)', async () => {
      const fake = await start(kind, [
        { toolCalls: [{ id: 'call_abc', name: weatherTool.name, arguments: longArgs }] },
      ]);
      const { response, events } = await turn(
        modelFor(fake),
        { messages: [user('weather?')], tools: [weatherTool] },
        stream,
      );
      expect(response.stopReason).toBe('tool_calls');
      expect(response.message.toolCalls).toEqual([
        { id: 'call_abc', name: weatherTool.name, arguments: longArgs },
      ]);
      if (stream) {
        const types = events.map((event) => event.type);
        expect(types.indexOf('tool_call_start')).toBeLessThan(types.indexOf('tool_call_delta'));
        expect(types.indexOf('tool_call_end')).toBeGreaterThan(types.lastIndexOf('tool_call_delta'));
        const deltas = events.flatMap((event) =>
          event.type === 'tool_call_delta' ? [event.argumentsDelta] : [],
        );
        // Gemini sends whole calls; the others split the argument JSON.
        if (kind !== 'gemini') expect(deltas.length).toBeGreaterThan(3);
        expect(JSON.parse(deltas.join(''))).toEqual(longArgs);
      }
    });

    it('keeps the ids and order of two parallel calls', async () => {
      const fake = await start(kind, [
        {
          text: 'Checking both.',
          toolCalls: [
            { id: 'call_1', name: 'weather__get_weather', arguments: { city: 'Oslo' } },
            { id: 'call_2', name: 'weather__get_weather', arguments: { city: 'Lima' } },
          ],
        },
      ]);
      const { response, events } = await turn(
        modelFor(fake),
        { messages: [user('two cities')], tools: [weatherTool] },
        stream,
      );
      expect(response.message.content).toBe('Checking both.');
      expect(response.message.toolCalls.map((call) => [call.id, call.arguments.city])).toEqual([
        ['call_1', 'Oslo'],
        ['call_2', 'Lima'],
      ]);
      if (stream) {
        const ends = events.flatMap((event) =>
          event.type === 'tool_call_end' ? [[event.index, event.call.id]] : [],
        );
        expect(ends).toEqual([
          [0, 'call_1'],
          [1, 'call_2'],
        ]);
      }
    });

    it('keeps a call whose arguments are not valid JSON and reports why', async () => {
      const fake = await start(kind, [
        { toolCalls: [{ id: 'call_x', name: 'weather__get_weather', arguments: '{"city": "Os' }] },
      ]);
      const { response } = await turn(
        modelFor(fake),
        { messages: [user('x')], tools: [weatherTool] },
        stream,
      );
      const [call] = response.message.toolCalls;
      expect(call).toMatchObject({ id: 'call_x', name: 'weather__get_weather', arguments: {} });
      expect(call!.invalidArguments?.raw).toContain('"Os');
      expect(call!.invalidArguments?.error).toMatch(/JSON|object/);
    });

    it('sends tool results back correlated, with isError and images', async () => {
      const fake = await start(kind, [{ text: 'Oslo is cold; Lima failed.' }]);
      const messages: ChatMessage[] = [
        { role: 'system', content: 'Be brief.' },
        user('two cities'),
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'weather__get_weather', arguments: { city: 'Oslo' } },
            { id: 'call_2', name: 'weather__get_weather', arguments: { city: 'Lima' } },
          ],
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
        {
          role: 'tool',
          toolCallId: 'call_2',
          name: 'weather__get_weather',
          content: 'station offline',
          isError: true,
        },
      ];
      const { response } = await turn(modelFor(fake), { messages, tools: [weatherTool] }, stream);
      expect(response.message.content).toBe('Oslo is cold; Lima failed.');
      const results = readToolResults(kind, fake.requests[0]!.body);
      expect(results.map((result) => [result.id, result.isError])).toEqual([
        ['call_1', false],
        ['call_2', true],
      ]);
      expect(results[0]!.text).toContain('-3C');
      expect(results[0]!.images).toBe(1);
      expect(results[1]!.text).toContain('station offline');
    });

    it('retries an HTTP 500 and then succeeds', async () => {
      const fake = await start(kind, [{ error: { status: 500, message: 'boom' } }, { text: 'recovered' }]);
      const { response } = await turn(modelFor(fake), { messages: [user('hi')] }, stream);
      expect(response.message.content).toBe('recovered');
      expect(fake.requests).toHaveLength(2);
    });

    it('honours Retry-After on 429', async () => {
      const fake = await start(kind, [
        { error: { status: 429, message: 'slow down', retryAfter: '0' } },
        { text: 'ok' },
      ]);
      const started = Date.now();
      const { response } = await turn(
        modelFor(fake, { retryBaseDelayMs: 5_000, maxRetryDelayMs: 10_000 }),
        { messages: [user('hi')] },
        stream,
      );
      expect(response.message.content).toBe('ok');
      expect(Date.now() - started).toBeLessThan(2_000); // Retry-After: 0 beats the 5 s backoff
    });

    it('surfaces a 400 with status, provider and the body message, without retrying', async () => {
      const fake = await start(kind, [{ error: { status: 400, message: 'tools[0] is malformed' } }]);
      const error = await turn(modelFor(fake), { messages: [user('hi')] }, stream).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ status: 400, code: 'http', provider: kind });
      expect((error as ModelError).message).toContain('tools[0] is malformed');
      expect(fake.requests).toHaveLength(1);
    });

    it('gives up after the retry budget on repeated 503', async () => {
      const fail = { error: { status: 503, message: 'overloaded' } };
      const fake = await start(kind, [fail, fail, fail, fail]);
      const error = await turn(modelFor(fake, { maxRetries: 2 }), { messages: [user('hi')] }, stream).catch(
        (e) => e,
      );
      expect(error).toMatchObject({ status: 503, retryable: true });
      expect(fake.requests).toHaveLength(3);
    });

    it('aborts with the caller reason, before headers and mid-stream', async () => {
      const fake = await start(kind, [{ hang: 'headers' }, { hang: 'body' }]);
      const model = modelFor(fake);
      for (const _ of [0, 1]) {
        const controller = new AbortController();
        const reason = new Error('user cancelled');
        setTimeout(() => controller.abort(reason), 100);
        const started = Date.now();
        const error = await turn(model, { messages: [user('hi')], signal: controller.signal }, stream).catch(
          (e) => e,
        );
        expect(error).toBe(reason);
        expect(Date.now() - started).toBeLessThan(2_000);
      }
    });

    it('times out a silent server instead of hanging', async () => {
      const fake = await start(kind, [{ hang: stream ? 'body' : 'headers' }]);
      const model = modelFor(fake, { timeoutMs: 150, maxRetries: 0 });
      const error = await turn(model, { messages: [user('hi')] }, stream).catch((e) => e);
      expect(error).toMatchObject({ code: 'timeout', provider: kind });
    });
  });
});
