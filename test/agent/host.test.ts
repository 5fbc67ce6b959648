/**
 * The host against real processes: servers that fail, hang or answer slowly must not hold up the others,
 * and resources and prompts are reachable from the host API (and opt-in as tools).
 */
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/agent/host.js';
import type { McpClient } from '../../src/client/index.js';
import { Agent } from '../../src/agent/agent.js';
import { parseConfig } from '../../src/agent/config.js';
import { afterTool } from '../../src/agent/middleware.js';
import { createModel } from '../../src/providers/index.js';
import { readToolNames, readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { LAB, LEGACY_SSE, ORDERS, ROOT, STUCK_LIST, WEATHER, config, startHttp, stdio } from './support.js';

describe('McpHost', () => {
  it('connects servers concurrently; a failing and a hanging server are reported and their tools absent', async () => {
    const marker = `silent-server-${process.pid}-${Date.now()}`;
    const started = Date.now();
    await using host = await McpHost.start(
      config({
        weather: stdio(WEATHER),
        broken: { command: process.execPath, args: ['-e', 'process.exit(7)'] },
        // Never answers the handshake: the connection attempt times out.
        silent: { command: process.execPath, args: ['-e', `setInterval(() => {}, 1000) // ${marker}`] },
        off: { command: 'does-not-matter', enabled: false },
      }),
      {
        connectTimeoutMs: 1500,
        startupTimeoutMs: 10_000,
        retry: { maxAttempts: 2, backoffMs: 50 },
        reconnect: false,
      },
    );
    const elapsed = Date.now() - started;
    const states = Object.fromEntries(host.servers().map((s) => [s.name, [s.state, s.attempts]]));
    expect(states).toEqual({
      weather: ['ready', 1],
      broken: ['failed', 2],
      silent: ['failed', 2],
      off: ['disabled', 0],
    });
    expect(host.servers().find((s) => s.name === 'silent')?.error).toContain('no connection within 1500 ms');
    expect(host.registry.entries().map((t) => t.llmName)).toEqual(['weather__get_weather']);
    // Two attempts of 1.5 s for the silent server, in parallel with everything else.
    expect(elapsed).toBeLessThan(8000);
    // The timed-out attempts' server processes are shut down by the time the host has closed.
    await host.close();
    const { execFileSync } = await import('node:child_process');
    const table = execFileSync('ps', ['-eo', 'stat,args'], { encoding: 'utf8' });
    expect(table.split('\n').filter((line) => line.includes(marker) && !line.startsWith('Z'))).toEqual([]);
  });

  it('goes on without a slow server and adds its tools at a later refresh', async () => {
    // Starts serving only after 3 s (stdin waits in the pipe meanwhile).
    const slowStart = `setTimeout(async () => {
      const { createWeatherServer } = await import(${JSON.stringify(WEATHER)});
      const { serve } = await import(${JSON.stringify(`${ROOT}examples/serve.mjs`)});
      await serve(createWeatherServer());
    }, 3000)`;
    await using host = await McpHost.start(
      config({
        weather: stdio(WEATHER),
        slow: { command: process.execPath, args: ['--input-type=module', '-e', slowStart] },
      }),
      { startupTimeoutMs: 2000, connectTimeoutMs: 15_000 },
    );
    // The slow one is still connecting: its tools are absent, the rest is usable.
    expect(host.registry.entries().map((t) => t.llmName)).toEqual(['weather__get_weather']);
    expect(host.servers().find((s) => s.name === 'slow')?.state).toBe('connecting');
    await host.settled();
    expect(host.refreshPending).toBe(true);
    const change = await host.refresh();
    expect(change.added).toEqual(['slow__get_weather']);
  });

  it('reconnects a server that died, and its tools come back at the next refresh', async () => {
    await using host = await McpHost.start(config({ lab: stdio(LAB, 'phoenix') }), {
      retry: { backoffMs: 50 },
    });
    const states: string[] = [];
    let ready!: () => void;
    const back = new Promise<void>((resolve) => (ready = resolve));
    host.on((event) => {
      if (event.type !== 'server_state') return;
      states.push(event.state);
      if (event.state === 'ready') ready();
    });
    await expect(host.callTool(host.registry.get('lab__crash')!, {})).rejects.toThrow();
    await back;
    expect(states[0]).toBe('failed');
    expect(states).toContain('connecting');
    await host.refresh();
    const search = host.registry.get('lab__search')!;
    expect((await host.callTool(search, { query: 'again' })).content[0]).toMatchObject({
      text: 'phoenix found: again',
    });
    expect(host.servers()[0]?.state).toBe('ready');
    expect(host.servers()[0]?.attempts).toBeGreaterThanOrEqual(2);
  });

  it('discovers every page of a paginated tools/list', async () => {
    await using paged = await McpHost.start(
      config({ lab: { ...stdio(LAB, 'paged'), env: { LAB_PAGE_SIZE: '2' } } }),
      {},
    );
    await using whole = await McpHost.start(config({ lab: stdio(LAB, 'whole') }), {});
    const names = (host: McpHost) => host.registry.entries().map((t) => t.llmName);
    const firstPage = await (paged.client('lab') as McpClient).listToolsPage();
    expect(firstPage.tools).toHaveLength(2);
    expect(firstPage.nextCursor).toBeTruthy();
    expect(names(paged).length).toBeGreaterThan(4);
    expect(names(paged)).toEqual(names(whole));
  });

  it('reaches resources and prompts through the host API, and as tools when the server opts in', async () => {
    await using host = await McpHost.start(
      config({ lab: { ...stdio(LAB, 'res-lab'), expose: { resources: true, prompts: true } } }),
      {},
    );
    const resources = await host.listResources();
    expect(resources).toEqual([
      { server: 'lab', resource: expect.objectContaining({ uri: 'lab://notes/today' }) },
    ]);
    const read = await host.readResource('lab', 'lab://notes/today');
    expect(read.contents[0]).toMatchObject({ uri: 'lab://notes/today', text: 'res-lab notes' });
    const prompts = await host.listPrompts('lab');
    expect(prompts.map((p) => p.prompt.name)).toEqual(['summarise']);
    const prompt = await host.getPrompt('lab', 'summarise', { topic: 'MCP' });
    expect(JSON.stringify(prompt.messages)).toContain('Summarise MCP');
    const reader = host.registry.get('lab__read_resource')!;
    expect(reader.kind).toBe('resource');
    const viaTool = await host.callTool(reader, { uri: 'lab://notes/today' });
    expect(viaTool.content[0]).toMatchObject({ type: 'resource', resource: { text: 'res-lab notes' } });
    const getter = host.registry.get('lab__get_prompt')!;
    const promptViaTool = await host.callTool(getter, { name: 'summarise', arguments: { topic: 'agents' } });
    expect(JSON.stringify(promptViaTool.content)).toContain('Summarise agents');
  });
});

describe('McpHost over HTTP', () => {
  it('connects by Streamable HTTP (type http or detected) and by the legacy HTTP+SSE transport (type sse)', async () => {
    await using orders = await startHttp(ORDERS);
    await using host = await McpHost.start(
      config({
        detected: { url: orders.url },
        streamable: { url: orders.url, type: 'http' },
        legacy: { url: orders.url.replace(/\/mcp$/, '/sse'), type: 'sse' },
      }),
      {},
    );
    expect(host.servers().map((s) => [s.name, s.state])).toEqual([
      ['detected', 'ready'],
      ['streamable', 'ready'],
      ['legacy', 'ready'],
    ]);
    for (const server of ['detected', 'streamable', 'legacy']) {
      const result = await host.callTool(host.registry.get(`${server}__get_order`)!, { orderId: '23456' });
      expect(result.structuredContent).toMatchObject({ orderId: '23456', status: 'processing' });
    }
    expect(host.servers().find((s) => s.name === 'legacy')?.era).toBe('handshake');
  });
});

describe('McpHost with a server written with the official SDK', () => {
  it('registers the tools of a handshake-era server (server-everything) and calls one', async () => {
    const everything = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
    await using host = await McpHost.start(config({ everything: stdio(everything, 'stdio') }), {});
    const [status] = host.servers();
    expect(status).toMatchObject({ name: 'everything', state: 'ready', era: 'handshake' });
    const echo = host.registry.get('everything__echo');
    expect(echo).toMatchObject({ server: 'everything', mcpName: 'echo' });
    expect(host.registry.size).toBe(status?.toolCount);
    const result = await host.callTool(echo!, { message: 'hello from agentforge' });
    expect(JSON.stringify(result.content)).toContain('hello from agentforge');
  });
});

describe('McpHost transport detection and per-server settings', () => {
  it('detects a legacy HTTP+SSE server (official SDK) for a URL without type, after Streamable HTTP fails', async () => {
    await using legacy = await startHttp(LEGACY_SSE, 'old');
    await using host = await McpHost.start(config({ archive: { url: legacy.url } }), {});
    expect(host.servers()[0]).toMatchObject({ state: 'ready', era: 'handshake', serverName: 'legacy-old' });
    const result = await host.callTool(host.registry.get('archive__search')!, { query: 'q' });
    expect(result.content[0]).toMatchObject({ text: 'old found: q' });
  });

  it('reads the VS Code "servers" key, and timeoutMs bounds each tool call of that server', async () => {
    const parsed = parseConfig(
      { servers: { lab: { ...stdio(LAB, 'slow-lab'), type: 'stdio', timeoutMs: 1500 } } },
      { source: '.vscode/mcp.json' },
    );
    await using host = await McpHost.start(parsed, {});
    const started = Date.now();
    const error = await host.callTool(host.registry.get('lab__wait')!, {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'LocalError', code: 'timeout' });
    // The server's own timeoutMs, not the default: a loaded machine's first call (lazy ajv) fits in it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - started).toBeLessThan(3000);
    // A timed-out call is not a dead server: it stays ready, its tools stay.
    expect(host.servers()[0]?.state).toBe('ready');
    expect(await host.callTool(host.registry.get('lab__search')!, { query: 'x' })).toMatchObject({
      content: [{ text: 'slow-lab found: x' }],
    });
  });
});

describe('McpHost refresh with a slow server', () => {
  it('a server that stops answering tools/list after list_changed does not hold up the next turn', async () => {
    await using fake = await startFakeProvider('openai', (body, _request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'stuck__poke', arguments: {} }] };
      if (index === 1)
        return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Beijing' } }] };
      return { text: readToolResults('openai', body)[0]?.text ?? '' };
    });
    await using host = await McpHost.start(
      config({
        weather: stdio(WEATHER),
        stuck: { ...stdio(STUCK_LIST), protocolVersion: '2025-11-25' },
      }),
      { refreshTimeoutMs: 300 },
    );
    let notified!: () => void;
    const changed = new Promise<void>((resolve) => (notified = resolve));
    host.on((event) => event.type === 'list_changed' && notified());
    const agent = new Agent({
      model: createModel(fake.spec('m'), fake.env),
      host,
      approval: { policy: 'all' },
      middleware: [afterTool(async (ctx) => void (ctx.call.name === 'stuck__poke' && (await changed)))],
    });
    const started = Date.now();
    const result = await agent.run('poke, then the weather');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.answer).toBe('Beijing: 18°C, cloudy');
    // The slow server keeps the tools it had; the others were never held up.
    expect(readToolNames('openai', fake.requests[1]!.body)).toEqual(['stuck__poke', 'weather__get_weather']);
    expect(host.servers().find((s) => s.name === 'stuck')?.state).toBe('ready');
  });
});
