/**
 * Modern requests against raw HTTP peers on 127.0.0.1, checked on the wire: pagination, typed errors, era
 * detection from 400 bodies, request metadata and headers, HeaderMismatch recovery, logs on a request stream.
 */
import { describe, expect, it } from 'vitest';
import type { McpClient } from '../../src/client/client.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { acceptingHandlers, complete, json, sseEvent, startRawServer, rawPeerScope } from './helpers.js';

const { servers, serve, connect } = rawPeerScope();

const base64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('pagination', () => {
  const lists = [
    ['tools/list', 'tools', (c: McpClient) => c.listTools()],
    ['resources/list', 'resources', (c: McpClient) => c.listResources()],
    ['resources/templates/list', 'resourceTemplates', (c: McpClient) => c.listResourceTemplates()],
    ['prompts/list', 'prompts', (c: McpClient) => c.listPrompts()],
  ] as const;

  it.each(lists)('%s follows nextCursor to the end', async (method, field, listAll) => {
    const pages: Record<string, { items: unknown[]; next?: string }> = {
      start: { items: [{ name: 'a', uri: 'x://a' }], next: 'c1' },
      c1: { items: [{ name: 'b', uri: 'x://b' }], next: 'c2' },
      c2: { items: [{ name: 'c', uri: 'x://c' }] },
    };
    const server = await serve((message, res) => {
      const page = pages[message.params?.cursor ?? 'start'];
      const result: Record<string, unknown> = { [field]: page?.items ?? [] };
      if (page?.next) result.nextCursor = page.next;
      json(res, 200, complete(message.id, result));
    });
    const client = await connect(server.url);
    const items = (await listAll(client)) as Array<{ name: string }>;
    expect(items.map((item) => item.name)).toEqual(['a', 'b', 'c']);
    const cursors = server.seen
      .filter((s) => s.message.method === method)
      .map((s) => s.message.params?.cursor);
    expect(cursors).toEqual([undefined, 'c1', 'c2']);
  });

  it('offers single pages, and refuses a server that repeats a cursor', async () => {
    const server = await serve((message, res) =>
      json(
        res,
        200,
        complete(message.id, {
          tools: [{ name: 't', inputSchema: { type: 'object' } }],
          nextCursor: 'again',
        }),
      ),
    );
    const client = await connect(server.url);
    const page = await client.listToolsPage();
    expect(page.nextCursor).toBe('again');
    expect(page.tools.map((t) => t.name)).toEqual(['t']);
    await expect(client.listTools()).rejects.toMatchObject({
      code: 'protocol_error',
      message: /repeated cursor/,
    });
  });
});

describe('results and errors', () => {
  it('a protocol error throws RpcError carrying code and data', async () => {
    const server = await serve((message, res) =>
      json(res, 200, {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32602, message: 'Invalid params: city', data: { field: 'city' } },
      }),
    );
    const client = await connect(server.url);
    const error = await client.callTool({ name: 'weather', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32602, data: { field: 'city' } });
  });
});

describe('era detection from a 400 body', () => {
  /** Answers discover with 400 and the given JSON-RPC error until `times` probes were refused. */
  async function refusing(error: Record<string, unknown>, times = 1) {
    const methods: string[] = [];
    const versions: unknown[] = [];
    const server = await startRawServer((req, res, body) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const message = JSON.parse(body);
      methods.push(message.method);
      if (message.method === 'server/discover') {
        versions.push(message.params?._meta?.['io.modelcontextprotocol/protocolVersion']);
        if (versions.length <= times) return json(res, 400, { jsonrpc: '2.0', id: message.id, error });
        return json(res, 200, complete(message.id, { supportedVersions: ['2026-07-28'], capabilities: {} }));
      }
      if (message.id === undefined) return res.writeHead(202).end();
      if (message.method === 'initialize')
        return json(
          res,
          200,
          complete(message.id, { protocolVersion: message.params.protocolVersion, capabilities: {} }),
        );
      json(res, 200, complete(message.id, { tools: [] }));
    });
    servers.push(server);
    return { server, methods, versions };
  }

  it('UnsupportedProtocolVersion (-32022): retries with a listed version, never falls back', async () => {
    const { server, methods, versions } = await refusing({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2099-01-01', '2026-07-28'], requested: '2026-07-28' },
    });
    const client = await connect(server.url);
    expect(client.era).toBe('stateless');
    expect(versions).toEqual(['2026-07-28', '2026-07-28']);
    expect(methods).not.toContain('initialize');
  });

  it('-32022 listing only handshake versions: initialize with the newest listed one', async () => {
    const { server, methods } = await refusing(
      {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2025-03-26', '2024-11-05'] },
      },
      99,
    );
    const client = await connect(server.url);
    expect(client.era).toBe('handshake');
    expect(client.protocolVersion).toBe('2025-03-26');
    expect(methods.filter((m) => m === 'server/discover')).toHaveLength(1);
  });

  it('a pinned handshake version skips the probe entirely', async () => {
    const { server, methods } = await refusing({ code: -32601, message: 'Method not found' }, 99);
    const client = await connect(server.url, { protocolVersion: '2025-06-18' });
    await client.listTools();
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(methods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
  });

  it('another modern error (-32021) is the answer: no fallback to initialize', async () => {
    const { server, methods } = await refusing(
      { code: -32021, message: 'Missing required client capability' },
      99,
    );
    await expect(connect(server.url)).rejects.toMatchObject({ code: -32021 });
    expect(methods).toEqual(['server/discover']);
  });
});

describe('request metadata and headers', () => {
  it('names every request in Mcp-Method, and resources/read and prompts/get in Mcp-Name', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'resources/read') return json(res, 200, complete(message.id, { contents: [] }));
      if (message.method === 'prompts/get') return json(res, 200, complete(message.id, { messages: [] }));
      json(res, 200, complete(message.id, { tools: [] }));
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const client = await connect(server.url, {
      handlers: acceptingHandlers(),
      traceparent: () => traceparent,
    });
    await client.readResource({ uri: 'file:///tmp/a b.txt' });
    await client.getPrompt({ name: 'café' });
    await client.listTools();
    const byMethod = (method: string) => server.seen.find((s) => s.message.method === method);
    expect(byMethod('resources/read')?.headers['mcp-name']).toBe('file:///tmp/a b.txt');
    expect(byMethod('prompts/get')?.headers['mcp-name']).toBe(base64('café'));
    expect(byMethod('tools/list')?.headers['mcp-name']).toBeUndefined();
    for (const { headers, message } of server.seen) {
      expect(headers['mcp-method']).toBe(message.method);
      expect(headers['mcp-protocol-version']).toBe('2026-07-28');
      if (message.method !== 'server/discover') expect(message.params._meta.traceparent).toBe(traceparent);
      expect(message.params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
      });
    }
  });

  it('encodes parameter values that look encoded or have outer spaces; never sends raw CR/LF', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'tools/list') {
        const properties = { q: { type: 'string', 'x-mcp-header': 'Query' } };
        return json(
          res,
          200,
          complete(message.id, { tools: [{ name: 'search', inputSchema: { type: 'object', properties } }] }),
        );
      }
      json(res, 200, complete(message.id, { content: [] }));
    });
    const client = await connect(server.url);
    const values = ['=?base64?aGk=?=', ' padded', 'a\r\nInjected: yes', 'plain value'];
    for (const q of values) await client.callTool({ name: 'search', arguments: { q } });
    const sent = server.seen
      .filter((s) => s.message.method === 'tools/call')
      .map((s) => s.headers['mcp-param-query']);
    expect(sent).toEqual([
      base64(values[0] ?? ''),
      base64(' padded'),
      base64('a\r\nInjected: yes'),
      'plain value',
    ]);
    expect(server.seen.some((s) => 'injected' in s.headers)).toBe(false);
  });

  it('on HeaderMismatch, refreshes tools/list and retries the call with the new headers', async () => {
    let listed = 0;
    const server = await serve((message, res, req) => {
      if (message.method === 'tools/list') {
        listed++;
        const q = listed === 1 ? { type: 'string' } : { type: 'string', 'x-mcp-header': 'Region' };
        return json(
          res,
          200,
          complete(message.id, {
            tools: [{ name: 'geo', inputSchema: { type: 'object', properties: { q } } }],
          }),
        );
      }
      if (req.headers['mcp-param-region'] !== 'eu')
        return json(res, 400, {
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32020, message: 'Header mismatch' },
        });
      json(res, 200, complete(message.id, { content: [{ type: 'text', text: 'ok' }] }));
    });
    const client = await connect(server.url);
    await expect(client.callTool({ name: 'geo', arguments: { q: 'eu' } })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
    const calls = server.seen.filter((s) => s.message.method === 'tools/call');
    expect(calls.map((c) => c.headers['mcp-param-region'])).toEqual([undefined, 'eu']);
    expect(listed).toBe(2);
  });

  it('delivers progress and log notifications from the request stream before the final result', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'tools/list') return json(res, 200, complete(message.id, { tools: [] }));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const token = message.params._meta.progressToken;
      sseEvent(res, {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2 },
      });
      sseEvent(res, {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'halfway' },
      });
      setTimeout(() => res.end(`data: ${JSON.stringify(complete(message.id, { content: [] }))}\n\n`), 30);
    });
    const client = await connect(server.url, { logLevel: 'info' });
    const order: string[] = [];
    client.on('log', (log) => order.push(`log ${String(log.data)}`));
    const call = client.callTool(
      { name: 'x', arguments: {} },
      { onprogress: (p) => order.push(`progress ${p.progress}/${p.total}`) },
    );
    await call.then(() => order.push('result'));
    expect(order).toEqual(['progress 1/2', 'log halfway', 'result']);
    const meta = server.seen.find((s) => s.message.method === 'tools/call')?.message.params._meta;
    expect(meta['io.modelcontextprotocol/logLevel']).toBe('info');
  });
});
