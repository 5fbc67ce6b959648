/**
 * Without tool middleware a call goes from the approval gate to its record with no promise of the pipeline's own
 * (ApprovalGate.passTo, executeToolInto); with middleware it takes the promise pipeline. Both must end the same:
 * every decision, failure and listener error, side by side.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions, type RunOptions } from '../../src/agent/agent.js';
import type { RunResult } from '../../src/agent/events.js';
import type { ApprovalGateOptions } from '../../src/agent/approval.js';
import type { Connector, HostClient } from '../../src/agent/client-surface.js';
import { parseConfig } from '../../src/agent/config.js';
import { McpHost } from '../../src/agent/host.js';
import type { AgentMiddleware } from '../../src/agent/middleware.js';
import type { ChatModel, ModelRequest, ModelResponse } from '../../src/agent/model.js';
import { LocalError } from '../../src/jsonrpc/errors.js';

const TOOLS = [{ name: 'echo', inputSchema: { type: 'object' as const } }];

/**
 * A server whose `echo` answers with its text, or fails with a JSON-RPC-level error for text "fail"; text "slow"
 * answers after 30 ms.
 */
const standIn = (): HostClient => ({
  era: 'handshake',
  protocolVersion: '2025-11-25',
  serverCapabilities: { tools: {} },
  listTools: async () => TOOLS,
  callTool: async (params) => {
    const text = String(params.arguments?.text);
    if (text === 'fail') throw new LocalError('protocol_error', 'bad answer');
    if (text === 'slow') await new Promise((resolve) => setTimeout(resolve, 30));
    return { content: [{ type: 'text', text }] };
  },
  listResources: async () => [],
  listPrompts: async () => [],
  readResource: async () => ({ contents: [] }),
  getPrompt: async () => ({ messages: [] }),
  close: async () => {},
});

/** Calls `s__echo` once per text in its first turn, then answers. */
function model(texts: string[]): ChatModel {
  const respond = (request: ModelRequest): ModelResponse =>
    request.messages.some((m) => m.role === 'tool')
      ? { message: { role: 'assistant', content: 'done', toolCalls: [] }, stopReason: 'stop' }
      : {
          message: {
            role: 'assistant',
            content: '',
            toolCalls: texts.map((text, i) => ({ id: `c${i}`, name: 's__echo', arguments: { text } })),
          },
          stopReason: 'tool_calls',
        };
  return {
    id: 'test:calls',
    generate: async (request) => respond(request),
    async *stream(request) {
      yield { type: 'done', response: respond(request) };
    },
  };
}

const passThrough: AgentMiddleware = { tool: (context, next) => next(context) };

/** The runs of `bothWays` with their times. */
const timed: RunResult[] = [];

async function bothWays(
  texts: string[],
  approval: ApprovalGateOptions,
  options: Partial<AgentOptions> = {},
  runOptions: RunOptions = {},
) {
  const connector: Connector = async () => standIn();
  const host = await McpHost.start(parseConfig({ mcpServers: { s: { command: 'stand-in' } } }), {
    connector,
  });
  try {
    const runs = [];
    for (const middleware of [[], [passThrough]]) {
      const agent = new Agent({ model: model(texts), host, approval, middleware, ...options });
      const result = await agent.run('go', runOptions).then(
        (r) => {
          timed.push(r);
          return { ...r, runId: '', startedAt: '', durationMs: 0, toolCalls: r.toolCalls.map(timeless) };
        },
        (error: unknown) => ({ thrown: String(error) }),
      );
      runs.push(result);
    }
    return runs;
  } finally {
    await host.close();
  }
}

const timeless = <T extends object>(record: T) => ({ ...record, startedAt: '', durationMs: 0 });

describe('a call with and without tool middleware', () => {
  it('policy-approved calls, one failing: the same records in the same order', async () => {
    const [direct, piped] = await bothWays(['a', 'fail', 'b'], { policy: 'all' });
    expect(direct).toEqual(piped);
    const calls = (direct as { toolCalls: Array<{ status: string }> }).toolCalls;
    expect(calls.map((c) => c.status)).toEqual(['ok', 'protocol_error', 'ok']);
  });

  it('an approver that allows, one that denies, one that throws', async () => {
    for (const answer of ['allow', 'deny'] as const) {
      const [direct, piped] = await bothWays(['a', 'b'], { approver: async () => answer });
      expect(direct).toEqual(piped);
      const calls = (direct as { toolCalls: Array<{ status: string }> }).toolCalls;
      expect(calls.map((c) => c.status)).toEqual(answer === 'allow' ? ['ok', 'ok'] : ['denied', 'denied']);
    }
    const [direct, piped] = await bothWays(['a'], {
      approver: async () => {
        throw new Error('approver broke');
      },
    });
    expect(direct).toEqual(piped);
    expect(direct).toMatchObject({ stopReason: 'error', error: { message: 'approver broke' } });
  });

  it('denied without an approver, and by the config', async () => {
    const [direct, piped] = await bothWays(['a'], {});
    expect(direct).toEqual(piped);
    expect(direct).toMatchObject({ toolCalls: [{ status: 'denied', approval: { by: 'non-interactive' } }] });
  });

  it('throwOnProtocolError throws the failure either way', async () => {
    const [direct, piped] = await bothWays(['a', 'fail'], { policy: 'all' }, { throwOnProtocolError: true });
    expect(direct).toEqual({ thrown: 'LocalError: bad answer' });
    expect(piped).toEqual(direct);
  });

  it('a listener that throws on tool_result ends the run with that error either way', async () => {
    const onEvent: RunOptions['onEvent'] = (event) => {
      if (event.type === 'tool_result') throw new Error('listener broke');
    };
    const [direct, piped] = await bothWays(['a'], { policy: 'all' }, {}, { onEvent });
    expect(direct).toEqual(piped);
    expect(direct).toMatchObject({ stopReason: 'error', error: { message: 'listener broke' } });
  });

  it("a call's startedAt and durationMs lie within its run's, either way", async () => {
    timed.length = 0;
    const [direct, piped] = await bothWays(['slow', 'a'], { policy: 'all' });
    expect(direct).toEqual(piped);
    expect(timed).toHaveLength(2);
    for (const run of timed) {
      const runStart = Date.parse(run.startedAt);
      expect(Math.abs(runStart - Date.now())).toBeLessThan(60_000);
      for (const call of run.toolCalls) {
        const start = Date.parse(call.startedAt);
        expect(call.startedAt).toBe(new Date(start).toISOString());
        expect(start).toBeGreaterThanOrEqual(runStart);
        // durationMs is rounded: a call may end up to half a millisecond past the run's whole milliseconds.
        expect(start + call.durationMs).toBeLessThanOrEqual(runStart + run.durationMs + 1);
      }
      const [slow, quick] = run.toolCalls;
      expect(slow!.durationMs).toBeGreaterThanOrEqual(25);
      expect(quick!.durationMs).toBeLessThan(slow!.durationMs);
    }
  });
});
