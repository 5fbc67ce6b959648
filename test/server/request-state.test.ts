/**
 * 2026-07-28 basic/patterns/mrtr, Server Requirements: requestState is attacker-controlled. Over real HTTP with
 * the real McpServer: tampered, expired, foreign, replayed (other tool, method, arguments or principal) and
 * garbage state is refused with one and the same error, the handler never runs, and nothing about the key or
 * the reason reaches the wire. Every response is checked against the 2026-07-28 schema.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Listening, McpServer, type McpServerOptions, listen } from '../../src/server/index.js';
import { delay } from '../../src/util/abort.js';
import { post } from './http/helpers.js';
import { MODERN, modernMeta, validateEmitted } from './support.js';

const KEY = 'agentforge-test-key-0123456789abcdef';
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const answer = { action: 'accept', content: { name: 'Ada' } };

let http: Listening | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

async function serve(options: McpServerOptions = {}) {
  const server = new McpServer({ name: 'state', version: '1' }, { requestState: { key: KEY }, ...options });
  const runs: string[] = [];
  const ask = async (label: string, context: Parameters<Parameters<McpServer['registerTool']>[2]>[1]) => {
    runs.push(`${label}:${context.inputRound}`);
    const reply = await context.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' });
    return String(reply.content?.name);
  };
  for (const name of ['greet', 'other']) {
    server.registerTool(name, { inputSchema: { type: 'object' } }, async (_args, context) => ({
      content: [{ type: 'text', text: `Hello, ${await ask(name, context)}` }],
    }));
  }
  server.registerPrompt('greet', {}, async (_args, context) => ({
    messages: [{ role: 'user', content: { type: 'text', text: await ask('prompt', context) } }],
  }));
  http = await listen(server, { keepAliveMs: 0 });
  return { url: http.url, runs };
}

let nextId = 1;

/** One 2026-07-28 request over HTTP; the answer is schema-checked and returned with its raw text. */
async function call(url: string, method: string, params: Record<string, unknown>) {
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta() } };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    'mcp-name': String(params.name),
  };
  const response = await post(url, body, headers);
  const text = await response.text();
  const message = JSON.parse(text);
  validateEmitted(MODERN, message, method);
  return { status: response.status, text, message };
}

async function firstState(url: string, tool = 'greet', args: Record<string, unknown> = {}): Promise<string> {
  const { message } = await call(url, 'tools/call', { name: tool, arguments: args });
  expect(message.result.resultType).toBe('input_required');
  return message.result.requestState as string;
}

/** The one answer every bad state gets: no reason, no key material, no echo of the state. */
function expectRefused(
  outcome: { status: number; text: string; message: Record<string, unknown> },
  state: unknown,
) {
  expect(outcome.message.error).toEqual({ code: -32602, message: 'Invalid requestState' });
  for (const secret of [KEY, Buffer.from(KEY).toString('base64'), Buffer.from(KEY).toString('hex')])
    expect(outcome.text).not.toContain(secret);
  if (typeof state === 'string' && state.length > 8) expect(outcome.text).not.toContain(state.slice(3, 40));
  expect(outcome.text).not.toMatch(/expired|signature|hmac|mac\b|tamper|principal|binding/i);
}

describe('requestState over HTTP', () => {
  it('refuses tampered and garbage state identically, and the handler never runs', async () => {
    const { url, runs } = await serve();
    const state = await firstState(url);
    const [version, body, mac] = state.split('.') as [string, string, string];
    const flipped = `${body.slice(0, -2)}${body.endsWith('A') ? 'B' : 'A'}${body.slice(-1)}`;
    const garbage = [
      `${version}.${flipped}.${mac}`,
      `${version}.${body}.${mac.slice(1)}`,
      `${version}.%%%%.@@@@`,
      'v1..',
      '',
      '....',
      `v2.${body}.${mac}`,
      Buffer.from('{"r":1,"s":{},"e":99999999999999}').toString('base64'),
      'ä'.repeat(1000),
      'A'.repeat(200_000),
    ];
    runs.length = 0;
    for (const requestState of garbage) {
      const outcome = await call(url, 'tools/call', {
        name: 'greet',
        arguments: {},
        inputResponses: { user_name: answer },
        requestState,
      });
      expect(outcome.status).toBe(200);
      expectRefused(outcome, requestState);
    }
    expect(runs).toEqual([]);
  });

  it('refuses state replayed on another tool, another method, other arguments, or by another principal', async () => {
    const { url, runs } = await serve();
    const state = await firstState(url, 'greet', { lang: 'fr' });
    runs.length = 0;
    const retry = (method: string, params: Record<string, unknown>) =>
      call(url, method, { inputResponses: { user_name: answer }, requestState: state, ...params });
    for (const outcome of [
      await retry('tools/call', { name: 'other', arguments: { lang: 'fr' } }),
      await retry('prompts/get', { name: 'greet', arguments: { lang: 'fr' } }),
      await retry('tools/call', { name: 'greet', arguments: { lang: 'en' } }),
    ])
      expectRefused(outcome, state);
    expect(runs).toEqual([]);
    // The genuine retry still works: refusals consumed nothing.
    const ok = await retry('tools/call', { name: 'greet', arguments: { lang: 'fr' } });
    expect(ok.message.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello, Ada' }] });
    expect(runs).toEqual(['greet:1']);
  });

  it('refuses state replayed by another authenticated principal (auth middleware in front of toNodeHandler)', async () => {
    const server = new McpServer({ name: 'auth', version: '1' }, { requestState: { key: KEY } });
    const runs: string[] = [];
    server.registerTool('whoami', {}, async (_args, context) => {
      runs.push(String((context.authInfo as { subject?: string }).subject));
      const reply = await context.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' });
      return { content: [{ type: 'text', text: String(reply.content?.name) }] };
    });
    const handler = server.toNodeHandler();
    const front = createServer((req, res) => {
      // What an auth middleware does: attach the verified identity as req.auth.
      Object.assign(req, { auth: { subject: req.headers['x-user'] } });
      handler(req, res);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`;
    try {
      const as = async (user: string, params: Record<string, unknown>) => {
        const body = {
          jsonrpc: '2.0',
          id: nextId++,
          method: 'tools/call',
          params: { name: 'whoami', arguments: {}, ...params, _meta: modernMeta() },
        };
        const response = await post(url, body, {
          'content-type': 'application/json',
          accept: 'application/json',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'whoami',
          'x-user': user,
        });
        const text = await response.text();
        return { status: response.status, text, message: JSON.parse(text) };
      };
      const state = (await as('alice', {})).message.result.requestState as string;
      runs.length = 0;
      expectRefused(
        await as('mallory', { requestState: state, inputResponses: { user_name: answer } }),
        state,
      );
      expect(runs).toEqual([]);
      const ok = await as('alice', { requestState: state, inputResponses: { user_name: answer } });
      expect(ok.message.result.content).toEqual([{ type: 'text', text: 'Ada' }]);
      expect(runs).toEqual(['alice']);
    } finally {
      await handler.close();
      await new Promise((resolve) => front.close(resolve));
    }
  });

  it('refuses expired state with the same answer', async () => {
    const { url, runs } = await serve({ requestState: { key: KEY, ttlMs: 20 } });
    const state = await firstState(url);
    await delay(60);
    runs.length = 0;
    const outcome = await call(url, 'tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: answer },
      requestState: state,
    });
    expectRefused(outcome, state);
    expect(runs).toEqual([]);
  });

  it('refuses a non-string requestState as invalid params, before any handler', async () => {
    const { url, runs } = await serve();
    runs.length = 0;
    for (const requestState of [42, { forged: true }, ['v1'], null]) {
      const outcome = await call(url, 'tools/call', { name: 'greet', arguments: {}, requestState });
      expect(outcome.message.error.code).toBe(-32602);
    }
    expect(runs).toEqual([]);
  });
});
