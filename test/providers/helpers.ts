import type { ChatModel, ModelRequest, ModelResponse, ModelStreamEvent } from '../../src/agent/model.js';
import { type CreateModelOptions, createModel } from '../../src/providers/index.js';
import type { FakeProvider } from '../support/fake-providers/index.js';

export const KINDS = ['openai', 'openai-responses', 'anthropic', 'gemini'] as const;

/** Fast retries so retry tests take milliseconds. */
export function modelFor(fake: FakeProvider, options: CreateModelOptions = {}): ChatModel {
  return createModel(fake.spec('test-model'), fake.env, {
    retryBaseDelayMs: 5,
    maxRetryDelayMs: 50,
    timeoutMs: 5_000,
    ...options,
  });
}

export interface Outcome {
  readonly response: ModelResponse;
  readonly events: ModelStreamEvent[];
}

/** One turn through `generate` or `stream`, so one test covers both. */
export async function turn(model: ChatModel, request: ModelRequest, stream: boolean): Promise<Outcome> {
  if (!stream) return { response: await model.generate(request), events: [] };
  const events: ModelStreamEvent[] = [];
  for await (const event of model.stream(request)) events.push(event);
  const last = events.at(-1);
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  return { response: last.response, events };
}

export const user = (text: string): ModelRequest['messages'][number] => ({ role: 'user', content: text });

export const weatherTool = {
  name: 'weather__get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
  },
};

/** A 1x1 PNG. */
export const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
