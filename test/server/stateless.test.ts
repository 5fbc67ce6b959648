import { describe, expect, it } from 'vitest';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { McpServer, type McpServerOptions } from '../../src/server/index.js';
import { delay } from '../../src/util/abort.js';
import { MODERN, modernError, modernMeta, modernResult, stateless, statelessSeam } from './support.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

function makeServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.2.3', instructions: 'be nice' }, options);
  server.registerTool(
    'add',
    {
      description: 'adds two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    },
    ({ a, b }: { a: number; b: number }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      // 13 breaks the outputSchema on purpose (the server must refuse it).
      structuredContent: (a === 13 ? { total: 13 } : { sum: a + b }) as { sum: number },
    }),
  );
  return server;
}

describe('2026-07-28 _meta and versions', () => {
  it('answers server/discover with versions, capabilities, caching hints and serverInfo in _meta', async () => {
    const result = await modernResult(makeServer(), 'server/discover');
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.supportedVersions).toContain('2025-11-25');
    expect(result.resultType).toBe('complete');
    expect((result._meta as Record<string, unknown>)[SERVER_INFO]).toEqual({
      name: 'test-server',
      version: '1.2.3',
    });
    expect(result.instructions).toBe('be nice');
    expect(result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: {}, resources: {} });
  });

  it('rejects missing _meta, protocolVersion or clientCapabilities with -32602, and echoes the id', async () => {
    const server = makeServer();
    const meta = modernMeta();
    const cases = [
      {},
      { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': undefined } },
      { _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': undefined } },
    ];
    for (const params of cases) {
      const error = await modernError(server, 'tools/list', JSON.parse(JSON.stringify(params)), {
        raw: true,
      });
      expect(error.code).toBe(-32602);
    }
  });

  it('serves a request whose _meta has no clientInfo', async () => {
    const meta = modernMeta();
    delete meta['io.modelcontextprotocol/clientInfo'];
    const result = await modernResult(makeServer(), 'tools/list', { _meta: meta }, { raw: true });
    expect(Array.isArray(result.tools)).toBe(true);
  });

  it('answers an unsupported version with -32022 listing the stateless versions and echoing the request', async () => {
    const error = await modernError(
      makeServer(),
      'server/discover',
      {},
      {
        meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
      },
    );
    expect(error.code).toBe(-32022);
    expect(error.data).toEqual({ supported: [MODERN], requested: 'v999.0.0' });
  });

  it('treats handshake-era methods and unknown methods as not found', async () => {
    const server = makeServer();
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'unknown/method',
    ]) {
      expect((await modernError(server, method)).code).toBe(-32601);
    }
  });
});

describe('2026-07-28 result envelope', () => {
  it('puts resultType and serverInfo in _meta on every result, and caching hints on every list and read', async () => {
    const server = makeServer();
    server.registerResource('doc', 'file:///doc.txt', {}, (uri) => ({ contents: [{ uri, text: 'doc' }] }));
    server.registerResourceTemplate('t', 'file:///t/{id}', {}, (uri) => ({ contents: [{ uri, text: 't' }] }));
    server.registerPrompt('p', { arguments: [{ name: 'x' }], complete: { x: () => ['y'] } }, () => ({
      messages: [],
    }));
    server.registerTool('ask', {}, async (_args, context) => {
      await context.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [] };
    });
    const calls: Array<[string, Record<string, unknown>, boolean]> = [
      ['server/discover', {}, true],
      ['tools/list', {}, true],
      ['prompts/list', {}, true],
      ['resources/list', {}, true],
      ['resources/templates/list', {}, true],
      ['resources/read', { uri: 'file:///doc.txt' }, true],
      ['resources/read', { uri: 'file:///t/1' }, true],
      ['tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, false],
      ['tools/call', { name: 'add', arguments: { a: 'x' } }, false],
      ['tools/call', { name: 'ask', arguments: {} }, false],
      ['prompts/get', { name: 'p' }, false],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } },
        false,
      ],
    ];
    for (const [method, params, cacheable] of calls) {
      const result = await modernResult(server, method, params);
      expect(result.resultType, method).toMatch(/^(complete|input_required)$/);
      expect((result._meta as Record<string, unknown>)[SERVER_INFO], method).toEqual({
        name: 'test-server',
        version: '1.2.3',
      });
      if (cacheable) {
        expect(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0, method).toBe(true);
        expect(['public', 'private'], method).toContain(result.cacheScope);
      }
    }
  });
});

describe('2026-07-28 lists', () => {
  function manyTools(count: number, options: McpServerOptions): McpServer {
    const server = new McpServer({ name: 's', version: '1' }, options);
    for (let i = 0; i < count; i++) {
      server.registerTool(
        `tool_${i}`,
        { description: `tool ${i}`, ttlMs: i === 3 ? 5_000 : undefined },
        () => ({
          content: [],
        }),
      );
    }
    return server;
  }

  it('paginates with opaque cursors in registration order, with caching hints on every page', async () => {
    const server = manyTools(5, { pageSize: 2, cache: { ttlMs: 60_000, cacheScope: 'public' } });
    const names: string[] = [];
    let cursor: string | undefined;
    const ttls: unknown[] = [];
    do {
      const page = await modernResult(server, 'tools/list', cursor ? { cursor } : {});
      names.push(...(page.tools as Array<{ name: string }>).map((tool) => tool.name));
      ttls.push(page.ttlMs);
      expect(page.cacheScope).toBe('public');
      cursor = page.nextCursor as string | undefined;
      if (cursor) expect(cursor).not.toMatch(/^\d+$/);
    } while (cursor);
    expect(names).toEqual(['tool_0', 'tool_1', 'tool_2', 'tool_3', 'tool_4']);
    // The page holding tool_3 takes its shorter TTL.
    expect(ttls).toEqual([60_000, 5_000, 60_000]);
  });

  it('rejects a cursor it did not issue', async () => {
    const server = manyTools(3, { pageSize: 2 });
    expect((await modernError(server, 'tools/list', { cursor: 'not-a-cursor' })).code).toBe(-32602);
    expect((await modernError(server, 'tools/list', { cursor: 42 })).code).toBe(-32602);
  });

  it('reuses the precomputed page until the tool set changes', async () => {
    const server = manyTools(3, {});
    const first = await statelessSeam(server).handleStatelessRequest(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } },
      { signal: new AbortController().signal, notify: () => {} },
    );
    const second = await statelessSeam(server).handleStatelessRequest(
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta() } },
      { signal: new AbortController().signal, notify: () => {} },
    );
    const tools = (response: typeof first) => ('result' in response ? response.result.tools : undefined);
    expect(tools(second)).toBe(tools(first));
    server.registerTool('late', { description: 'late' }, () => ({ content: [] }));
    const third = await modernResult(server, 'tools/list');
    expect(third.tools).not.toBe(tools(first));
    expect((third.tools as unknown[]).length).toBe(4);
  });

  it('lists resources, templates and prompts with caching hints, and reads resources', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerResource(
      'readme',
      'file:///readme.md',
      { mimeType: 'text/markdown', ttlMs: 1000 },
      (uri) => ({
        contents: [{ uri, text: '# hi' }],
      }),
    );
    server.registerResourceTemplate(
      'user',
      'users://{id}/profile{?fields}',
      { cacheScope: 'private' },
      (uri, vars) => ({
        contents: [{ uri, text: JSON.stringify(vars) }],
      }),
    );
    server.registerPrompt('greet', { description: 'greets' }, () => ({ messages: [] }));
    expect(await modernResult(server, 'resources/list')).toMatchObject({
      resources: [{ uri: 'file:///readme.md', name: 'readme', mimeType: 'text/markdown' }],
      ttlMs: 1000,
    });
    expect(await modernResult(server, 'resources/templates/list')).toMatchObject({
      resourceTemplates: [{ uriTemplate: 'users://{id}/profile{?fields}', name: 'user' }],
      cacheScope: 'private',
    });
    expect(await modernResult(server, 'prompts/list')).toMatchObject({ prompts: [{ name: 'greet' }] });
    const read = await modernResult(server, 'resources/read', { uri: 'users://42/profile?fields=a,b' });
    expect(JSON.parse((read.contents as Array<{ text: string }>)[0]?.text ?? '')).toEqual({
      id: '42',
      fields: ['a', 'b'],
    });
    expect(read).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('answers an unknown resource with -32602 carrying the uri (SEP-2164)', async () => {
    const error = await modernError(makeServer(), 'resources/read', { uri: 'test://nope' });
    expect(error).toMatchObject({ code: -32602, data: { uri: 'test://nope' } });
  });
});

describe('2026-07-28 tools/call', () => {
  it('validates input before the handler: a failure is a tool error the model can read', async () => {
    const server = makeServer();
    const ok = await modernResult(server, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    expect(ok).toMatchObject({ structuredContent: { sum: 3 }, resultType: 'complete' });
    const bad = await modernResult(server, 'tools/call', { name: 'add', arguments: { a: 'x', b: 2 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/Invalid arguments for tool add: \/a must be number/);
    const extra = await modernResult(server, 'tools/call', { name: 'add', arguments: { a: 1, b: 2, c: 3 } });
    expect(JSON.stringify(extra.content)).toMatch(/must NOT have additional properties 'c'/);
  });

  it('checks structuredContent against the outputSchema', async () => {
    const result = await modernResult(makeServer(), 'tools/call', {
      name: 'add',
      arguments: { a: 13, b: 0 },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/does not match its outputSchema/);
  });

  it('keeps protocol errors and tool errors apart', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('boom', {}, () => {
      throw new Error('disk full');
    });
    server.registerTool('rpc', {}, () => {
      throw new RpcError(-32602, 'bad request shape');
    });
    expect(await modernResult(server, 'tools/call', { name: 'boom' })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'disk full' }],
    });
    expect(await modernError(server, 'tools/call', { name: 'rpc' })).toMatchObject({ code: -32602 });
    expect(await modernError(server, 'tools/call', { name: 'missing' })).toMatchObject({ code: -32602 });
    expect(await modernError(server, 'tools/call', { name: 'boom', arguments: [1] })).toMatchObject({
      code: -32602,
    });
  });

  it('sends progress only with a progress token, and logs only at or above the request logLevel', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('work', {}, async (_args, context) => {
      await context.progress(1, 2, 'half');
      await context.log('debug', 'noise');
      await context.log('error', { failed: 'part' }, 'worker');
      return { content: [] };
    });
    const quiet = await stateless(server, 'tools/call', { name: 'work' });
    expect(quiet.notifications).toEqual([]);
    const loud = await stateless(
      server,
      'tools/call',
      { name: 'work' },
      {
        meta: { progressToken: 'tok', 'io.modelcontextprotocol/logLevel': 'warning' },
      },
    );
    expect(loud.notifications.map((n) => n.method)).toEqual([
      'notifications/progress',
      'notifications/message',
    ]);
    expect(loud.notifications[0]?.params).toEqual({
      progressToken: 'tok',
      progress: 1,
      total: 2,
      message: 'half',
    });
    expect(loud.notifications[1]?.params).toEqual({
      level: 'error',
      logger: 'worker',
      data: { failed: 'part' },
    });
  });

  it('answers a synchronous tool at once, with no promise, and an async one with a promise', () => {
    const server = makeServer();
    server.registerTool('later', {}, async () => ({ content: [{ type: 'text', text: 'later' }] }));
    const request = (id: number, name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0' as const,
      id,
      method: 'tools/call',
      params: { name, arguments: args, _meta: modernMeta() },
    });
    const context = { signal: new AbortController().signal, notify: () => {} };
    const now = statelessSeam(server).handleStatelessRequest(request(1, 'add', { a: 2, b: 3 }), context);
    expect(now).not.toBeInstanceOf(Promise);
    expect(now).toMatchObject({ id: 1, result: { structuredContent: { sum: 5 }, resultType: 'complete' } });
    // A synchronous failure of the request itself is an error response, not a throw.
    const unknown = statelessSeam(server).handleStatelessRequest(request(2, 'nope', {}), context);
    expect(unknown).toMatchObject({ id: 2, error: { code: -32602 } });
    const later = statelessSeam(server).handleStatelessRequest(request(3, 'later', {}), context);
    expect(later).toBeInstanceOf(Promise);
    // A handler may return any thenable (a promise of another library); the answer is still a native promise.
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a native promise is the point here.
    const thenable = { then: (resolve: (value: unknown) => void) => resolve({ content: [] }) };
    server.registerTool('thenable', {}, () => thenable as unknown as Promise<{ content: [] }>);
    const foreign = statelessSeam(server).handleStatelessRequest(request(4, 'thenable', {}), context);
    expect(foreign).toBeInstanceOf(Promise);
    return Promise.all([
      expect(later).resolves.toMatchObject({ id: 3, result: { content: [{ text: 'later' }] } }),
      expect(foreign).resolves.toMatchObject({ id: 4, result: { content: [], resultType: 'complete' } }),
    ]);
  });

  it('lets a handler destructure its context methods, which stay the same functions', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('work', {}, (_args, context) => {
      const { progress, log } = context;
      expect(context.log).toBe(log);
      expect(context.progress).toBe(progress);
      void progress(1);
      void log('error', 'from a destructured log');
      return { content: [] };
    });
    const { notifications } = await stateless(
      server,
      'tools/call',
      { name: 'work' },
      { meta: { progressToken: 7, 'io.modelcontextprotocol/logLevel': 'info' } },
    );
    expect(notifications.map((n) => n.method)).toEqual(['notifications/progress', 'notifications/message']);
  });

  it('aborts the handler when the request is cancelled', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    let observed: unknown;
    server.registerTool('slow', {}, async (_args, context) => {
      try {
        await delay(10_000, context.signal);
      } catch (error) {
        observed = error;
        throw error;
      }
      return { content: [] };
    });
    const controller = new AbortController();
    const pending = stateless(server, 'tools/call', { name: 'slow' }, { signal: controller.signal });
    await delay(20);
    controller.abort(new Error('client went away'));
    await pending;
    expect(observed).toBeInstanceOf(Error);
    expect((observed as Error).message).toBe('client went away');
  });
});

describe('2026-07-28 completion', () => {
  it('completes prompt arguments and template variables, capped at 100 values', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerPrompt(
      'p',
      {
        arguments: [{ name: 'city' }],
        complete: { city: (value) => ['paris', 'prague', 'rome'].filter((c) => c.startsWith(value)) },
      },
      () => ({ messages: [] }),
    );
    server.registerResourceTemplate(
      'numbers',
      'num://{n}',
      { complete: { n: () => Array.from({ length: 150 }, (_, i) => String(i)) } },
      (uri) => ({ contents: [{ uri, text: uri }] }),
    );
    const prompt = await modernResult(server, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'city', value: 'p' },
    });
    expect(prompt.completion).toEqual({ values: ['paris', 'prague'], total: 2, hasMore: false });
    const template = await modernResult(server, 'completion/complete', {
      ref: { type: 'ref/resource', uri: 'num://{n}' },
      argument: { name: 'n', value: '' },
    });
    expect(template.completion).toMatchObject({ total: 150, hasMore: true });
    expect((template.completion as { values: string[] }).values).toHaveLength(100);
    const unknown = await modernError(server, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'nope' },
      argument: { name: 'x', value: '' },
    });
    expect(unknown.code).toBe(-32602);
  });
});
