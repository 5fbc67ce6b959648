/** Model middleware around each turn, and the run as an event stream for UIs (real servers, real client). */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { DemoModel } from '../../src/agent/demo-model.js';
import type { RunResult } from '../../src/agent/events.js';
import { McpHost } from '../../src/agent/host.js';
import { afterModel, beforeModel } from '../../src/agent/middleware.js';
import { createModel } from '../../src/providers/index.js';
import { readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { ROOT, WEATHER, config, harness, stdio } from './support.js';

const PROGRESS = `${ROOT}test/fixtures/progress-server.mjs`;

describe('model middleware', () => {
  it('can rewrite the request, short-circuit a turn, and edit the response', async () => {
    await using fake = await startFakeProvider('gemini', [{ text: 'the real model answer' }]);
    await using host = await McpHost.start(config({ weather: stdio(WEATHER) }), {});
    const cache = new Map<string, string>([['cached question', 'from the cache']]);
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      middleware: [
        beforeModel((ctx) => ({
          ...ctx,
          request: {
            ...ctx.request,
            messages: [{ role: 'system', content: 'Answer in English.' }, ...ctx.request.messages],
          },
        })),
        {
          model: async (ctx, next) => {
            const last = ctx.request.messages.at(-1);
            const hit =
              last?.role === 'user' && typeof last.content === 'string' ? cache.get(last.content) : undefined;
            if (hit)
              return { message: { role: 'assistant', content: hit, toolCalls: [] }, stopReason: 'stop' };
            return next(ctx);
          },
        },
        afterModel((_ctx, response) => ({
          ...response,
          message: { ...response.message, content: response.message.content.toUpperCase() },
        })),
      ],
    });
    expect((await agent.run('cached question')).answer).toBe('from the cache');
    expect(fake.requests).toHaveLength(0);
    expect((await agent.run('fresh question')).answer).toBe('THE REAL MODEL ANSWER');
    expect(fake.requests[0]?.body.systemInstruction.parts[0].text).toBe('Answer in English.');
  });
});

describe('events for UIs', () => {
  it('agent.stream() yields the run as events, ending with done', async () => {
    await using host = await McpHost.start(config({ weather: { ...stdio(WEATHER), approval: 'auto' } }), {});
    const agent = new Agent({ model: new DemoModel(), host });
    const types: string[] = [];
    let done: RunResult | undefined;
    for await (const event of agent.stream('What is the weather in Shanghai?')) {
      if (types.at(-1) !== event.type) types.push(event.type);
      if (event.type === 'done') done = event.result;
    }
    expect(types).toEqual([
      'run_start',
      'registry',
      'model_start',
      'model_end',
      'tool_call',
      'tool_start',
      'tool_result',
      'model_start',
      'text_delta',
      'model_end',
      'answer',
      'done',
    ]);
    expect(done?.toolCalls[0]).toMatchObject({ llmName: 'weather__get_weather', approval: { by: 'config' } });
    expect(done?.answer).toContain('offline demo model');
    expect(done?.answer).toContain('Shanghai: 24°C, light rain');
  });
});

describe('a running tool call, as events', () => {
  const once = (name: string) => (body: unknown) =>
    readToolResults('openai', body).length === 0
      ? { toolCalls: [{ id: 'call_1', name, arguments: {} }] }
      : { text: 'ok' };

  it("the server's notifications/progress arrive as tool_progress of that call, between tool_start and its result", async () => {
    await using h = await harness('openai', once('progress__scan'), {
      progress: { ...stdio(PROGRESS), env: { PROGRESS_STEPS: '3', PROGRESS_DELAY_MS: '20' } },
    });
    await h.run('scan');
    const seen = h.events.flatMap((event) =>
      event.type === 'tool_call' || event.type === 'tool_start' || event.type === 'tool_result'
        ? [event.type]
        : event.type === 'tool_progress'
          ? [`${event.callId} ${event.llmName} ${event.progress}/${event.total} ${event.message}`]
          : [],
    );
    expect(seen).toEqual([
      'tool_call',
      'tool_start',
      'call_1 progress__scan 1/3 scanning file 1',
      'call_1 progress__scan 2/3 scanning file 2',
      'call_1 progress__scan 3/3 scanning file 3',
      'tool_result',
    ]);
  });

  it('a call waiting for approval is announced with its call id, and only sent once approved', async () => {
    const order: string[] = [];
    await using h = await harness(
      'openai',
      once('progress__write'),
      { progress: stdio(PROGRESS) },
      {
        approval: {
          approver: async (request) => {
            order.push(`asked ${request.callId}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
            order.push('answered');
            return 'allow';
          },
        },
      },
    );
    await h.agent.run('write', {
      onEvent: (event) => {
        if (event.type === 'approval_request') order.push(`approval_request ${event.request.callId}`);
        if (event.type === 'tool_start') order.push(`tool_start ${event.callId}`);
      },
    });
    expect(order).toEqual(['approval_request call_1', 'asked call_1', 'answered', 'tool_start call_1']);
  });
});
