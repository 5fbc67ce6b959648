/**
 * The agent's GenAI spans around a real run: a fake OpenAI endpoint on 127.0.0.1 asks for one tool call, the
 * host calls the traced stdio server, and one trace runs invoke_agent > chat / execute_tool > the MCP CLIENT
 * span > the server's SERVER span (written by the child's own SDK).
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { clientConnector } from '../../src/agent/connect.js';
import { McpHost } from '../../src/agent/host.js';
import { agentTracing, clientTracing } from '../../src/otel/index.js';
import { createModel } from '../../src/providers/index.js';
import { type FakeProvider, startFakeProvider } from '../support/fake-providers/index.js';
import { config } from '../agent/support.js';
import { OTEL_SERVER, type SpanFile, named, registerSdk, spanFile } from './support.js';

const sdk = registerSdk();

describe('agent spans', () => {
  let spans: SpanFile;
  let fake: FakeProvider;
  let host: McpHost;

  beforeAll(async () => {
    spans = spanFile();
    // Each run: tool calls first, then an answer once the tool results are in.
    fake = await startFakeProvider('openai', (body) =>
      body.messages.at(-1)?.role !== 'tool'
        ? {
            toolCalls: [
              { name: 'traced__echo', arguments: { text: 'secret words' } },
              { name: 'traced__fails', arguments: {} },
            ],
            usage: { input: 11, output: 7 },
          }
        : { text: 'done', usage: { input: 20, output: 3 } },
    );
    host = await McpHost.start(
      config({
        traced: { command: process.execPath, args: [OTEL_SERVER], env: { OTEL_SPANS_FILE: spans.path } },
      }),
      { reconnect: false, connector: clientConnector({ middleware: [clientTracing()] }) },
    );
  });
  afterAll(async () => {
    await host?.close();
    await fake?.close();
    spans?.dispose();
  });

  const agent = (recordContent: boolean) =>
    new Agent({
      model: createModel(fake.spec('test-model'), fake.env, { maxRetries: 0 }),
      host,
      approval: { policy: 'all' },
      tracing: agentTracing({ recordContent }),
    });

  it('invoke_agent parents chat and execute_tool, and execute_tool parents the MCP client span', async () => {
    sdk.spans.reset();
    const result = await agent(false).run('echo something');
    expect(result.stopReason).toBe('answer');
    const finished = sdk.spans.getFinishedSpans();
    const run = named(finished, 'invoke_agent');
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'test-model',
      'gen_ai.conversation.id': result.runId,
      'gen_ai.usage.input_tokens': 31,
      'gen_ai.usage.output_tokens': 10,
    });
    const chats = finished.filter((span) => span.name === 'chat test-model');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(chat.attributes['gen_ai.operation.name']).toBe('chat');
    }
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 11,
    });

    const tool = named(finished, 'execute_tool traced__echo');
    expect(tool.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'traced__echo',
    });
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    const mcpCall = named(finished, 'tools/call echo');
    expect(mcpCall.kind).toBe(SpanKind.CLIENT);
    expect(mcpCall.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    const failing = named(finished, 'execute_tool traced__fails');
    expect(failing.attributes['error.type']).toBe('tool_error');
    expect(failing.status.code).toBe(SpanStatusCode.ERROR);
    expect(named(finished, 'tools/call fails').parentSpanContext?.spanId).toBe(failing.spanContext().spanId);

    const server = (await spans.waitFor('echo work')).filter((span) => span.name === 'tools/call echo');
    expect(server.at(-1)).toMatchObject({
      kind: SpanKind.SERVER,
      traceId: run.spanContext().traceId,
      parentSpanId: mcpCall.spanContext().spanId,
    });
  });

  it('records arguments, results and messages only when recordContent is on', async () => {
    sdk.spans.reset();
    await agent(true).run('echo something');
    const finished = sdk.spans.getFinishedSpans();
    const tool = named(finished, 'execute_tool traced__echo');
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({
      text: 'secret words',
    });
    expect(String(tool.attributes['gen_ai.tool.call.result'])).toContain('secret words');
    expect(String(named(finished, 'invoke_agent').attributes['gen_ai.input.messages'])).toContain(
      'echo something',
    );
    expect(
      finished.filter((s) => s.name === 'chat test-model')[1]!.attributes['gen_ai.output.messages'],
    ).toContain('done');
  });
});
