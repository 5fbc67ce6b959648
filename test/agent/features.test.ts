/**
 * Host features around the loop, with real servers and the real client: sampling and elicitation requests
 * from a server, cancellation of in-flight tool calls, re-approval of a tool that changed, middleware that
 * rewrites arguments, and the audit log.
 */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { ApprovalRequest } from '../../src/agent/approval.js';
import type { AuditEntry } from '../../src/agent/audit.js';
import type { Connector, HostClient, ToolCallOptions } from '../../src/agent/client-surface.js';
import { mcpClientConnector } from '../../src/agent/connect.js';
import { McpHost } from '../../src/agent/host.js';
import { afterTool, beforeTool } from '../../src/agent/middleware.js';
import { createModel } from '../../src/providers/index.js';
import { readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { LAB, WEATHER, config, stdio } from './support.js';

const lastUserText = (body: any): string => {
  const last = body.messages.at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
};

describe('server requests reach the host', () => {
  it('sampling: a tool asks the agent model, after approval; elicitation reaches the UI', async () => {
    await using fake = await startFakeProvider('openai', (body) => {
      const results = readToolResults('openai', body);
      if (lastUserText(body).includes('capital of France')) return { text: 'Paris' }; // the sampling request
      if (results.length === 0) {
        return {
          toolCalls: [
            { name: 'lab__ask_model', arguments: { q: 'What is the capital of France?' } },
            { name: 'lab__ask_user', arguments: {} },
          ],
        };
      }
      return { text: results.map((r) => r.text).join(' | ') };
    });
    const sampled: string[] = [];
    const elicited: string[] = [];
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {
      offerSampling: true,
      handlers: {
        elicitation: async (server, params) => {
          elicited.push(`${server}: ${params.message}`);
          return { action: 'accept', content: { city: 'Hangzhou' } };
        },
      },
    });
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      sampling: {
        approve: async (server, params) => {
          sampled.push(`${server}: ${JSON.stringify(params.messages[0]?.content)}`);
          return true;
        },
      },
    });
    const result = await agent.run('Use the lab');
    expect(sampled).toEqual(['lab: {"type":"text","text":"What is the capital of France?"}']);
    expect(elicited).toEqual(['lab: Where should we ship it?']);
    expect(result.answer).toBe('model said: Paris | ship to Hangzhou');
  });

  it('a sampling request that is not approved fails on the server side, and the run goes on', async () => {
    await using fake = await startFakeProvider('openai', (body) => {
      const results = readToolResults('openai', body);
      if (results.length === 0)
        return { toolCalls: [{ name: 'lab__ask_model', arguments: { q: 'secret?' } }] };
      return { text: `${results[0]?.isError ? 'error' : 'ok'}` };
    });
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), { offerSampling: true });
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      sampling: { approve: async () => false },
    });
    const result = await agent.run('Use the lab');
    expect(fake.requests).toHaveLength(2); // the model was never sampled
    expect(result.toolCalls[0]?.isError).toBe(true);
    expect(result.answer).toBe('error');
  });
});

describe('the loop around tools', () => {
  it('an AbortSignal cancels in-flight tool calls and ends the run as cancelled', async () => {
    await using fake = await startFakeProvider('anthropic', [
      { toolCalls: [{ name: 'lab__wait', arguments: {} }] },
    ]);
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {});
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
    });
    const controller = new AbortController();
    const started = Date.now();
    const running = agent.run('wait', {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'tool_call')
          setTimeout(() => controller.abort(new Error('user pressed Ctrl-C')), 200);
      },
    });
    const result = await running;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.stopReason).toBe('cancelled');
    expect(result.toolCalls[0]).toMatchObject({ llmName: 'lab__wait', status: 'cancelled', isError: true });
    expect(fake.requests).toHaveLength(1);
    // The server itself was told (notifications/cancelled), and the connection lives on.
    const count = await host.callTool(host.registry.get('lab__cancellations')!, {});
    expect(count.content[0]).toMatchObject({ text: '1' });
  });

  it('a run without a signal hands its calls none (nothing can abort it); a run with one hands that one', async () => {
    await using fake = await startFakeProvider('openai', (_body, _request, index) =>
      index % 2 === 0
        ? { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Beijing' } }] }
        : { text: 'done' },
    );
    const seen: Array<AbortSignal | undefined> = [];
    // The default connector, with each callTool's options recorded on the way to the real client.
    const connector: Connector = async (server, context) => {
      const client = await mcpClientConnector(server, context);
      return new Proxy(client, {
        get(target, property) {
          if (property === 'callTool') {
            return (params: Parameters<HostClient['callTool']>[0], options?: ToolCallOptions) => {
              seen.push(options?.signal);
              return target.callTool(params, options);
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    };
    await using host = await McpHost.start(config({ weather: stdio(WEATHER) }), { connector });
    const contextSignals: AbortSignal[] = [];
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      middleware: [beforeTool((context) => void contextSignals.push(context.signal))],
    });
    expect((await agent.run('weather?')).toolCalls[0]?.status).toBe('ok');
    const controller = new AbortController();
    expect((await agent.run('weather?', { signal: controller.signal })).toolCalls[0]?.status).toBe('ok');
    expect(seen).toEqual([undefined, controller.signal]);
    // Middleware sees a signal either way: the run's own (never aborted) or the caller's.
    expect(contextSignals[0]).toBeInstanceOf(AbortSignal);
    expect(contextSignals[0]?.aborted).toBe(false);
    expect(contextSignals[1]).toBe(controller.signal);
  });

  it("a run's own signal left with a listener on it is not handed to the next run; one nobody listens on is", async () => {
    await using fake = await startFakeProvider('openai', (_body, _request, index) =>
      index % 2 === 0
        ? { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Beijing' } }] }
        : { text: 'done' },
    );
    await using host = await McpHost.start(config({ weather: stdio(WEATHER) }), {});
    const signals: AbortSignal[] = [];
    let listen = false;
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      middleware: [
        beforeTool((context) => {
          signals.push(context.signal);
          // Never removed: a run's signal must not carry it into later runs.
          if (listen) context.signal.addEventListener('abort', () => {});
          return undefined;
        }),
      ],
    });
    for (const listening of [false, false, true, false]) {
      listen = listening;
      expect((await agent.run('weather?')).toolCalls[0]?.status).toBe('ok');
    }
    expect(signals.every((signal) => signal instanceof AbortSignal && !signal.aborted)).toBe(true);
    // Nothing listened on the first two runs' signal; the third left a listener, so the fourth has a new one.
    expect(signals[1]).toBe(signals[0]);
    expect(signals[2]).toBe(signals[1]);
    expect(signals[3]).not.toBe(signals[2]);
  });

  it('a tool that changes after approval is asked about again, with the diff', async () => {
    await using fake = await startFakeProvider('gemini', (body) => {
      const n = readToolResults('gemini', body).length;
      const turn = (body.contents as unknown[]).length;
      if (turn === 1) return { toolCalls: [{ name: 'lab__search', arguments: { query: 'a' } }] };
      if (turn === 3) return { toolCalls: [{ name: 'lab__rewrite_search', arguments: {} }] };
      if (turn === 5) return { toolCalls: [{ name: 'lab__search', arguments: { query: 'b' } }] };
      return { text: `done ${n}` };
    });
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {});
    let notified!: () => void;
    const changed = new Promise<void>((resolve) => (notified = resolve));
    host.on((event) => event.type === 'list_changed' && notified());
    const asked: ApprovalRequest[] = [];
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: {
        approver: async (request) => {
          asked.push(request);
          return request.reason === 'changed' ? 'deny' : 'always';
        },
      },
      middleware: [
        // The turn of the rewrite ends once the server's list_changed has arrived, so the registry refresh
        // before the next turn cannot race the notification.
        afterTool(async (ctx) => {
          if (ctx.call.name === 'lab__rewrite_search') await changed;
          return undefined;
        }),
      ],
    });
    const result = await agent.run('search, rewrite, search');
    expect(asked.map((r) => [r.tool.llmName, r.reason])).toEqual([
      ['lab__search', 'policy'],
      ['lab__rewrite_search', 'policy'],
      ['lab__search', 'changed'],
    ]);
    expect(asked[2]?.diff).toContain('+   "description": "Search the lab notes, and mail them to someone",');
    expect(result.toolCalls.map((c) => c.status)).toEqual(['ok', 'ok', 'denied']);
    // Until the change is approved, the model keeps seeing the definition that was approved, not the new text.
    const offered = (request: { body: any }) =>
      (request.body.tools as any[])
        .flatMap((t) => t.functionDeclarations)
        .find((d: { name: string }) => d.name === 'lab__search')?.description;
    expect(fake.requests.map(offered)).toEqual(Array(fake.requests.length).fill('Search the lab notes'));
  });

  it('middleware rewrites arguments before approval and the call; the audit log records each call', async () => {
    await using fake = await startFakeProvider('openai-responses', (body) => {
      const results = readToolResults('openai-responses', body);
      if (results.length === 0)
        return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: '  hangzhou ' } }] };
      return { text: results[0]?.text ?? '' };
    });
    await using host = await McpHost.start(config({ weather: stdio(WEATHER) }), {});
    const audit: AuditEntry[] = [];
    const approvedArgs: unknown[] = [];
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: {
        approver: async (request) => {
          approvedArgs.push(request.arguments);
          return 'allow';
        },
      },
      audit: { sink: (entry) => void audit.push(entry), user: 'alice' },
      middleware: [
        beforeTool((ctx) => ({ ...ctx, arguments: { location: String(ctx.arguments.location).trim() } })),
      ],
    });
    const result = await agent.run('weather?');
    expect(approvedArgs).toEqual([{ location: 'hangzhou' }]);
    expect(result.answer).toBe('Hangzhou: 26°C, sunny');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      user: 'alice',
      model: 'openai-responses:m',
      llmName: 'weather__get_weather',
      server: 'weather',
      tool: 'get_weather',
      arguments: { location: 'hangzhou' },
      approval: { decision: 'approved', by: 'user' },
      status: 'ok',
      isError: false,
    });
    expect(audit[0]?.resultBytes).toBeGreaterThan(20);
  });
});

describe('what the model gets wrong, and limits', () => {
  it('unknown tools and unparsable arguments come back as error results; the calls are never dropped', async () => {
    await using fake = await startFakeProvider('openai', (body) => {
      const results = readToolResults('openai', body);
      if (results.length === 0) {
        return {
          toolCalls: [
            { id: 'c1', name: 'weather__get_wether', arguments: { location: 'Hangzhou' } },
            { id: 'c2', name: 'weather__get_weather', arguments: '{"location": "Hangz' },
          ],
        };
      }
      return { text: results.map((r) => `${r.id}:${r.isError}`).join(',') };
    });
    await using host = await McpHost.start(config({ weather: stdio(WEATHER) }), {});
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
    });
    const result = await agent.run('weather');
    expect(result.toolCalls.map((c) => [c.id, c.status, c.approval])).toEqual([
      ['c1', 'unknown_tool', null],
      ['c2', 'invalid_arguments', null],
    ]);
    const sent = readToolResults('openai', fake.requests[1]!.body);
    expect(sent[0]?.text).toContain(
      'Unknown tool "weather__get_wether". Available tools: weather__get_weather.',
    );
    expect(sent[1]?.text).toContain(
      'Invalid arguments for weather__get_weather: arguments are not valid JSON',
    );
    expect(result.answer).toBe('c1:true,c2:true');
  });

  it('a protocol error becomes a clear error result, or is thrown with throwOnProtocolError', async () => {
    const script = (body: any) => {
      const results = readToolResults('openai', body);
      if (results.length === 0) {
        return {
          toolCalls: [
            { name: 'lab__remove_search', arguments: {} },
            { name: 'lab__search', arguments: { query: 'gone?' } },
          ],
        };
      }
      return { text: 'answered' };
    };
    await using fake = await startFakeProvider('openai', script);
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {});
    // Concurrency 1: the removal happens before the search, within one turn (the registry still lists it).
    const base = {
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' as const },
      concurrency: 1,
    };
    const result = await new Agent(base).run('remove then search');
    expect(result.toolCalls[1]).toMatchObject({
      llmName: 'lab__search',
      status: 'protocol_error',
      isError: true,
    });
    expect(result.toolCalls[1]?.error?.code).toBe(-32602);
    const sent = readToolResults('openai', fake.requests[1]!.body);
    expect(sent[1]?.text).toMatch(
      /Tool call to lab\/search failed before the tool could answer \(JSON-RPC error -32602/,
    );

    await using host2 = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {});
    const strict = new Agent({ ...base, host: host2, throwOnProtocolError: true });
    await expect(strict.run('remove then search')).rejects.toMatchObject({ name: 'RpcError', code: -32602 });
  });

  it('truncates a large result before it reaches the model, saying so; the transcript keeps it whole', async () => {
    await using fake = await startFakeProvider('anthropic', (body) => {
      const [result] = readToolResults('anthropic', body);
      return result
        ? { text: `got ${result.text.length}` }
        : { toolCalls: [{ name: 'lab__big', arguments: {} }] };
    });
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {});
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      resultLimits: { maxTextChars: 1000 },
    });
    const result = await agent.run('big');
    const [sent] = readToolResults('anthropic', fake.requests[1]!.body);
    expect(sent?.text.startsWith('x'.repeat(1000))).toBe(true);
    expect(sent?.text).toContain('[truncated: showing 1000 of 100000 characters]');
    expect(sent?.text.length).toBeLessThan(1100);
    expect(JSON.stringify(result.toolCalls[0]?.result).length).toBeGreaterThan(100_000);
  });

  it('stops after maxSteps with the last text the model produced', async () => {
    await using fake = await startFakeProvider('anthropic', () => ({
      text: 'still looking',
      toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'London' } }],
    }));
    await using host = await McpHost.start(config({ weather: stdio(WEATHER) }), {});
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      maxSteps: 3,
    });
    const result = await agent.run('loop forever');
    expect(result).toMatchObject({ stopReason: 'max_steps', steps: 3, answer: 'still looking' });
    expect(fake.requests).toHaveLength(3);
    expect(result.toolCalls).toHaveLength(3);
  });

  it('runs one turn of calls in parallel up to the concurrency limit', async () => {
    const calls = Array.from({ length: 4 }, (_, i) => ({ name: 'lab__wait', arguments: { n: i } }));
    await using fake = await startFakeProvider('openai', [{ toolCalls: calls }]);
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'lab') }), {});
    const controller = new AbortController();
    let inFlight = 0;
    let peak = 0;
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      concurrency: 2,
      middleware: [
        {
          tool: async (ctx, next) => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            if (peak === 2) setTimeout(() => controller.abort(new Error('enough')), 100);
            try {
              return await next(ctx);
            } finally {
              inFlight--;
            }
          },
        },
      ],
    });
    const result = await agent.run('wait four times', { signal: controller.signal });
    expect(peak).toBe(2);
    expect(result.stopReason).toBe('cancelled');
    expect(result.toolCalls.every((c) => c.status === 'cancelled')).toBe(true);
  });
});
