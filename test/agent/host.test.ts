/**
 * The host against real processes: servers that fail, hang or answer slowly must not hold up the others,
 * and resources and prompts are reachable from the host API (and opt-in as tools).
 */
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/agent/host.js';
import { LAB, ROOT, WEATHER, config, stdio } from './support.js';

describe('McpHost', () => {
  it('connects servers concurrently; a failing and a hanging server are reported and their tools absent', async () => {
    const started = Date.now();
    await using host = await McpHost.start(
      config({
        weather: stdio(WEATHER),
        broken: { command: process.execPath, args: ['-e', 'process.exit(7)'] },
        // Never answers the handshake: the connection attempt times out.
        silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
        off: { command: 'does-not-matter', enabled: false },
      }),
      { connectTimeoutMs: 1500, startupTimeoutMs: 10_000, retry: { maxAttempts: 2, backoffMs: 50 }, reconnect: false },
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

  it('reaches resources and prompts through the host API, and as tools when the server opts in', async () => {
    await using host = await McpHost.start(
      config({ lab: { ...stdio(LAB, 'res-lab'), expose: { resources: true, prompts: true } } }),
      {},
    );
    const resources = await host.listResources();
    expect(resources).toEqual([{ server: 'lab', resource: expect.objectContaining({ uri: 'lab://notes/today' }) }]);
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
