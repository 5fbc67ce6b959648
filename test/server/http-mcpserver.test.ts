import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/server/index.js';
import { type Listening, listen } from '../../src/server/http.js';
import { modern, post, readSse } from './http/helpers.js';
import { MODERN, validateEmitted } from './support.js';

let server: McpServer;
let http: Listening;
let runs = 0;

beforeEach(async () => {
  runs = 0;
  server = new McpServer({ name: 'real', version: '1.0.0' });
  server.registerTool(
    'deploy',
    {
      description: 'routes by region',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, steps: { type: 'integer' } },
        required: ['region'],
      },
    },
    async (args, context) => {
      runs++;
      const steps = typeof args.steps === 'number' ? args.steps : 0;
      for (let step = 1; step <= steps; step++) await context.progress(step, steps);
      return { content: [{ type: 'text', text: `deployed to ${String(args.region)}` }] };
    },
  );
  http = await listen(server, { keepAliveMs: 0 });
});

afterEach(async () => {
  await http.close();
  await server.close();
});

describe('the real McpServer behind the HTTP layer', () => {
  it('2026-07-28: validates Mcp-Param-* from the registered schema before the handler runs', async () => {
    const { body, headers } = modern('tools/call', { name: 'deploy', arguments: { region: 'eu' } });
    const checked = async (response: Response) => {
      const message = await response.json();
      validateEmitted(MODERN, message, 'tools/call');
      return message;
    };
    const mismatch = await post(http.url, body, { ...headers, 'mcp-param-region': 'us' });
    expect(mismatch.status).toBe(400);
    expect(await checked(mismatch)).toMatchObject({ id: 1, error: { code: -32020 } });
    const missing = await post(http.url, body, headers);
    expect(missing.status).toBe(400);
    expect(await checked(missing)).toMatchObject({ error: { code: -32020 } });
    expect(runs).toBe(0);
    const ok = await post(http.url, body, { ...headers, 'mcp-param-region': 'eu' });
    expect(ok.status).toBe(200);
    expect(await checked(ok)).toMatchObject({ result: { content: [{ text: 'deployed to eu' }] } });
    expect(runs).toBe(1);
  });

  it('2026-07-28: progress streams as SSE before the result', async () => {
    const { body, headers } = modern('tools/call', {
      name: 'deploy',
      arguments: { region: 'eu', steps: 2 },
      _meta: { progressToken: 'p' },
    });
    const response = await post(http.url, body, { ...headers, 'mcp-param-region': 'eu' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const messages = (await readSse(response)).events.map((event) => JSON.parse(event.data));
    for (const message of messages) validateEmitted(MODERN, message, 'tools/call');
    expect(messages.map((m) => m.method ?? 'result')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'result',
    ]);
  });

  it('2026-07-28: a client that drops a pending JSON request cancels the handler (no SSE opened)', async () => {
    const events: string[] = [];
    server.registerTool('quiet', {}, async (_args, context) => {
      events.push('started');
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
      events.push('aborted');
      return { content: [] };
    });
    const controller = new AbortController();
    const { body, headers } = modern('tools/call', { name: 'quiet', arguments: {} });
    const pending = post(http.url, body, headers, controller.signal).catch((error: Error) => error.name);
    await expect.poll(() => events).toEqual(['started']);
    controller.abort();
    expect(await pending).toBe('AbortError');
    await expect.poll(() => events, { timeout: 2000 }).toEqual(['started', 'aborted']);
  });

  it('handshake era over Streamable HTTP and over HTTP+SSE, on the same server at once', async () => {
    const streamable = new Client({ name: 'new', version: '1' });
    await streamable.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    const old = new Client({ name: 'old', version: '1' });
    await old.connect(new SSEClientTransport(new URL('/sse', http.url)));
    try {
      const progress: number[] = [];
      const a = await streamable.callTool(
        { name: 'deploy', arguments: { region: 'us', steps: 3 } },
        undefined,
        {
          onprogress: (p) => progress.push(p.progress),
        },
      );
      expect(a.content).toEqual([{ type: 'text', text: 'deployed to us' }]);
      expect(progress).toEqual([1, 2, 3]);
      const b = await old.callTool({ name: 'deploy', arguments: { region: 'ap' } });
      expect(b.content).toEqual([{ type: 'text', text: 'deployed to ap' }]);
    } finally {
      await streamable.close();
      await old.close();
    }
  });
});
