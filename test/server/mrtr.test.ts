/** 2026-07-28 basic/patterns/mrtr: input_required results, retries, and sealed requestState. */
import { describe, expect, it } from 'vitest';
import { McpServer, type McpServerOptions } from '../../src/server/index.js';
import { delay } from '../../src/util/abort.js';
import { modernError, modernResult } from './support.js';

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

function makeServer(options: McpServerOptions = {}) {
  const server = new McpServer({ name: 's', version: '1' }, options);
  const runs = { greet: 0, wizard: 0, guarded: 0 };
  server.registerTool(
    'greet',
    { inputSchema: { type: 'object', properties: { lang: { type: 'string' } } } },
    async ({ lang }: { lang?: string }, context) => {
      runs.greet++;
      const answer = await context.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' });
      return {
        content: [
          { type: 'text', text: `${lang === 'fr' ? 'Bonjour' : 'Hello'}, ${String(answer.content?.name)}!` },
        ],
      };
    },
  );
  server.registerTool('wizard', {}, async (_args, context) => {
    runs.wizard++;
    const first = await context.elicit({ message: 'Step 1', requestedSchema: NAME }, { key: 'step1' });
    const [roots, model] = [
      await context.listRoots({ key: 'roots' }),
      await context.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 5,
      }),
    ];
    return {
      content: [
        {
          type: 'text',
          text: `${String(first.content?.name)} ${roots.roots.length} ${model.model} round ${context.inputRound}`,
        },
      ],
    };
  });
  server.registerTool('guarded', { requiredClientCapabilities: { sampling: {} } }, () => {
    runs.guarded++;
    return { content: [] };
  });
  server.registerPrompt('ask', {}, async (_args, context) => {
    const answer = await context.elicit({ message: 'Topic?', requestedSchema: NAME }, { key: 'topic' });
    return {
      messages: [{ role: 'user', content: { type: 'text', text: `About ${String(answer.content?.name)}` } }],
    };
  });
  server.registerResource('secret', 'vault://secret', {}, async (uri, context) => {
    const answer = await context.elicit({ message: 'Really?', requestedSchema: NAME }, { key: 'confirm' });
    return { contents: [{ uri, text: `opened for ${String(answer.content?.name)}` }] };
  });
  return { server, runs };
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as Array<{ text: string }>)[0]?.text ?? '';
}

describe('input_required round trips', () => {
  it('asks for input, then completes on the retry that carries the answer and the sealed state', async () => {
    const { server } = makeServer();
    const first = await modernResult(server, 'tools/call', { name: 'greet', arguments: { lang: 'fr' } });
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toEqual({
      user_name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: NAME } },
    });
    expect(typeof first.requestState).toBe('string');
    const second = await modernResult(server, 'tools/call', {
      name: 'greet',
      arguments: { lang: 'fr' },
      inputResponses: { user_name: accept({ name: 'Ada' }), unrelated: { anything: true } },
      requestState: first.requestState,
    });
    expect(second.resultType).toBe('complete');
    expect(textOf(second)).toBe('Bonjour, Ada!');
  });

  it('carries earlier answers forward across rounds in the requestState', async () => {
    const { server } = makeServer();
    const round1 = await modernResult(server, 'tools/call', { name: 'wizard' });
    expect(Object.keys(round1.inputRequests as object)).toEqual(['step1']);
    const round2 = await modernResult(server, 'tools/call', {
      name: 'wizard',
      inputResponses: { step1: accept({ name: 'Ada' }) },
      requestState: round1.requestState,
    });
    expect(Object.keys(round2.inputRequests as object)).toEqual(['roots']);
    expect(round2.requestState).not.toBe(round1.requestState);
    const round3 = await modernResult(server, 'tools/call', {
      name: 'wizard',
      inputResponses: { roots: { roots: [{ uri: 'file:///a' }] } },
      requestState: round2.requestState,
    });
    expect(Object.keys(round3.inputRequests as object)).toEqual(['sampling-1']);
    const done = await modernResult(server, 'tools/call', {
      name: 'wizard',
      inputResponses: {
        'sampling-1': { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm1' },
      },
      requestState: round3.requestState,
    });
    expect(textOf(done)).toBe('Ada 1 m1 round 3');
  });

  it('re-asks for a missing or malformed answer instead of failing', async () => {
    const { server } = makeServer();
    for (const inputResponses of [
      { wrong_key: accept({ name: 'x' }) },
      { user_name: 12345 },
      { user_name: { action: 'maybe' } },
    ]) {
      const result = await modernResult(server, 'tools/call', { name: 'greet', inputResponses });
      expect(result.resultType).toBe('input_required');
      expect(Object.keys(result.inputRequests as object)).toEqual(['user_name']);
    }
    expect((await modernError(server, 'tools/call', { name: 'greet', inputResponses: null })).code).toBe(
      -32602,
    );
    expect((await modernError(server, 'tools/call', { name: 'greet', requestState: 7 })).code).toBe(-32602);
  });

  it('asks concurrent questions in one round, even from a handler that swallows the signal', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('both', {}, async (_args, context) => {
      try {
        const [who, roots] = await Promise.all([
          context.elicit({ message: 'Who?', requestedSchema: NAME }, { key: 'who' }),
          context.listRoots({ key: 'where' }),
        ]);
        return { content: [{ type: 'text', text: `${String(who.content?.name)}@${roots.roots[0]?.uri}` }] };
      } catch {
        return { content: [{ type: 'text', text: 'swallowed' }] };
      }
    });
    const first = await modernResult(server, 'tools/call', { name: 'both' });
    expect(Object.keys(first.inputRequests as object).sort()).toEqual(['where', 'who']);
    const done = await modernResult(server, 'tools/call', {
      name: 'both',
      requestState: first.requestState,
      inputResponses: { who: accept({ name: 'Ada' }), where: { roots: [{ uri: 'file:///w' }] } },
    });
    expect(textOf(done)).toBe('Ada@file:///w');
  });

  it('works for prompts/get and resources/read, and never for other methods', async () => {
    const { server } = makeServer();
    const prompt = await modernResult(server, 'prompts/get', { name: 'ask' });
    expect(prompt.resultType).toBe('input_required');
    const promptDone = await modernResult(server, 'prompts/get', {
      name: 'ask',
      inputResponses: { topic: accept({ name: 'owls' }) },
      requestState: prompt.requestState,
    });
    expect(promptDone.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'About owls' } }]);
    const read = await modernResult(server, 'resources/read', { uri: 'vault://secret' });
    expect(read.resultType).toBe('input_required');
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      expect((await modernResult(server, method)).resultType).toBe('complete');
    }
  });
});

describe('requestState integrity', () => {
  async function stateFor(server: McpServer, args: Record<string, unknown> = {}) {
    const first = await modernResult(server, 'tools/call', { name: 'greet', arguments: args });
    return first.requestState as string;
  }

  it('rejects tampered state without running the handler and without saying why', async () => {
    const { server, runs } = makeServer();
    const state = await stateFor(server);
    const [version, body, mac] = state.split('.');
    const forged = Buffer.from(
      JSON.stringify({ r: 9, s: { user_name: accept({ name: 'Mallory' }) }, e: 9e15 }),
    ).toString('base64url');
    const before = runs.greet;
    for (const tampered of [
      `${state}-TAMPERED`,
      `${version}.${forged}.${mac}`,
      `${version}.${body}.${'A'.repeat(43)}`,
      'garbage',
    ]) {
      const error = await modernError(server, 'tools/call', {
        name: 'greet',
        inputResponses: { user_name: accept({ name: 'Ada' }) },
        requestState: tampered,
      });
      expect(error).toEqual({ code: -32602, message: 'Invalid requestState' });
    }
    expect(runs.greet).toBe(before);
  });

  it('rejects state replayed on another tool, other arguments or by another principal', async () => {
    const { server, runs } = makeServer();
    const alice = { authInfo: { subject: 'alice' } };
    const first = await modernResult(
      server,
      'tools/call',
      { name: 'greet', arguments: { lang: 'fr' } },
      { extra: alice },
    );
    const state = first.requestState as string;
    const before = { ...runs };
    const retry = (name: string, args: Record<string, unknown>, extra: Record<string, unknown>) =>
      modernError(
        server,
        'tools/call',
        { name, arguments: args, requestState: state, inputResponses: {} },
        { extra },
      );
    expect((await retry('wizard', { lang: 'fr' }, alice)).message).toBe('Invalid requestState');
    expect((await retry('greet', { lang: 'en' }, alice)).message).toBe('Invalid requestState');
    expect((await retry('greet', { lang: 'fr' }, { authInfo: { subject: 'bob' } })).message).toBe(
      'Invalid requestState',
    );
    expect(runs).toEqual(before);
    // The same principal, tool and arguments are accepted.
    const ok = await modernResult(
      server,
      'tools/call',
      {
        name: 'greet',
        arguments: { lang: 'fr' },
        requestState: state,
        inputResponses: { user_name: accept({ name: 'A' }) },
      },
      { extra: alice },
    );
    expect(textOf(ok)).toBe('Bonjour, A!');
  });

  it('rejects expired state, and state sealed by another server key', async () => {
    const { server } = makeServer({ requestState: { ttlMs: 1 } });
    const state = await stateFor(server);
    await delay(10);
    expect((await modernError(server, 'tools/call', { name: 'greet', requestState: state })).code).toBe(
      -32602,
    );
    const other = makeServer().server;
    const foreign = await stateFor(other);
    expect((await modernError(server, 'tools/call', { name: 'greet', requestState: foreign })).code).toBe(
      -32602,
    );
  });

  it('accepts state from a server that shares the configured key (horizontal scaling)', async () => {
    const key = 'a shared secret of at least sixteen bytes';
    const one = makeServer({ requestState: { key } }).server;
    const two = makeServer({ requestState: { key } }).server;
    const state = await stateFor(one);
    const done = await modernResult(two, 'tools/call', {
      name: 'greet',
      requestState: state,
      inputResponses: { user_name: accept({ name: 'Lin' }) },
    });
    expect(textOf(done)).toBe('Hello, Lin!');
  });
});

describe('missing client capabilities (-32021)', () => {
  it('fails before the handler runs when a declared requirement is missing', async () => {
    const { server, runs } = makeServer();
    const error = await modernError(
      server,
      'tools/call',
      { name: 'guarded' },
      {
        meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    );
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    expect(runs.guarded).toBe(0);
  });

  it('asks for URL-mode elicitation only from clients that declared it', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('login', {}, async (_args, context) => {
      const answer = await context.elicit(
        { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/start', elicitationId: 'e-1' },
        { key: 'sign_in' },
      );
      return { content: [{ type: 'text', text: answer.action }] };
    });
    const formOnly = await modernError(
      server,
      'tools/call',
      { name: 'login' },
      {
        meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
      },
    );
    expect(formOnly).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
    const asked = await modernResult(
      server,
      'tools/call',
      { name: 'login' },
      {
        meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } },
      },
    );
    expect(asked.inputRequests).toMatchObject({
      sign_in: { method: 'elicitation/create', params: { mode: 'url' } },
    });
  });

  it('fails when a handler asks for input the client cannot give', async () => {
    const { server } = makeServer();
    const error = await modernError(
      server,
      'tools/call',
      { name: 'greet' },
      {
        meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } },
      },
    );
    expect(error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });
});
