import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/agent/config.js';
import { LLM_NAME_PATTERN, assignNames, sanitizeName } from '../../src/agent/naming.js';
import { type ServerSnapshot, ToolRegistry } from '../../src/agent/registry.js';
import type { Tool } from '../../src/mcp/types.js';

const tool = (
  name: string,
  description = `does ${name}`,
  properties: Record<string, unknown> = {},
): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties },
});

function snapshots(
  servers: Record<string, { config?: Record<string, unknown>; tools: Tool[] }>,
): ServerSnapshot[] {
  const config = parseConfig({
    mcpServers: Object.fromEntries(
      Object.entries(servers).map(([name, s]) => [name, { command: 'x', ...s.config }]),
    ),
  });
  return config.servers.map((server) => ({ config: server, tools: servers[server.name]!.tools }));
}

describe('llm names', () => {
  it('sanitises to what every provider accepts, hashing long names apart', () => {
    expect(sanitizeName('weather__get_weather')).toBe('weather__get_weather');
    expect(sanitizeName('fs__read.file/v2')).toBe('fs__read_file_v2');
    const a = sanitizeName(`srv__${'x'.repeat(80)}a`);
    const b = sanitizeName(`srv__${'x'.repeat(80)}b`);
    expect(a).toMatch(LLM_NAME_PATTERN);
    expect(b).toMatch(LLM_NAME_PATTERN);
    expect(a).not.toBe(b);
    expect(sanitizeName('日本')).toBe('__');
  });

  it('resolves collisions deterministically, whatever the input order, and drops nothing', () => {
    const requests = [
      { key: 'k1', server: 'a.b', name: 'run' },
      { key: 'k2', server: 'a_b', name: 'run' },
      { key: 'k3', server: 'a-b', name: 'run' },
    ];
    const forward = assignNames(requests);
    const backward = assignNames([...requests].reverse());
    expect(forward).toEqual(backward);
    expect(new Set(forward.values()).size).toBe(3);
    expect(forward.get('k3')).toBe('a-b__run');
    expect(forward.get('k1')).toBe('a_b__run');
    expect(forward.get('k2')).toBe('a_b__run_2');
  });

  it('keeps names already handed out when a newcomer would sort first', () => {
    const first = assignNames([{ key: 'late', server: 'a_b', name: 'run' }]);
    const next = assignNames(
      [
        { key: 'late', server: 'a_b', name: 'run' },
        { key: 'early', server: 'a.b', name: 'run' },
      ],
      undefined,
      first,
    );
    expect(next.get('late')).toBe('a_b__run');
    expect(next.get('early')).toBe('a_b__run_2');
  });
});

describe('ToolRegistry', () => {
  it('maps llmName -> (server, mcpName) with {server}__{tool} names, across servers with the same tool', () => {
    const registry = new ToolRegistry();
    registry.update(
      snapshots({ weather: { tools: [tool('get_weather')] }, maps: { tools: [tool('get_weather')] } }),
    );
    expect(registry.entries().map((e) => [e.llmName, e.server, e.mcpName])).toEqual([
      ['maps__get_weather', 'maps', 'get_weather'],
      ['weather__get_weather', 'weather', 'get_weather'],
    ]);
    expect(registry.definitions()[1]).toEqual({
      name: 'weather__get_weather',
      description: 'does get_weather',
      inputSchema: { type: 'object', properties: {} },
    });
  });

  it('applies allow and deny globs per server, and groups per run', () => {
    const registry = new ToolRegistry();
    registry.update(
      snapshots({
        orders: {
          config: { tools: { allow: ['get_*', 'list_*'], deny: ['get_secret'] }, group: 'support' },
          tools: [tool('get_order'), tool('get_secret'), tool('list_orders'), tool('delete_order')],
        },
        misc: { tools: [tool('echo')] },
      }),
    );
    expect(registry.entries().map((e) => e.llmName)).toEqual([
      'misc__echo',
      'orders__get_order',
      'orders__list_orders',
    ]);
    expect(registry.definitions(['other']).map((d) => d.name)).toEqual(['misc__echo']);
    expect(registry.definitions(['support']).map((d) => d.name)).toHaveLength(3);
    expect(registry.definitions(['support'])).toBe(registry.definitions(['support'])); // cached, not rebuilt per turn
  });

  it('reports added, removed and changed tools; an equal schema in another key order is no change', () => {
    const registry = new ToolRegistry();
    registry.update(
      snapshots({ s: { tools: [tool('a', 'A', { x: { type: 'string', description: 'x' } }), tool('b')] } }),
    );
    const version = registry.version;
    const same = registry.update(
      snapshots({ s: { tools: [tool('a', 'A', { x: { description: 'x', type: 'string' } }), tool('b')] } }),
    );
    expect(same).toEqual({ added: [], removed: [], changed: [] });
    expect(registry.version).toBe(version);
    const change = registry.update(
      snapshots({ s: { tools: [tool('a', 'A, but now it also emails your boss'), tool('c')] } }),
    );
    expect(change).toEqual({ added: ['s__c'], removed: ['s__b'], changed: ['s__a'] });
    expect(registry.version).toBe(version + 1);
  });

  it('exposes resources and prompts as tools only when the server opts in', () => {
    const config = parseConfig({
      mcpServers: {
        docs: { command: 'x', expose: { resources: true, prompts: true } },
        other: { command: 'y' },
      },
    });
    const resources = [{ uri: 'file:///readme', name: 'readme', description: 'The readme' }];
    const prompts = [{ name: 'greet', arguments: [{ name: 'who', required: true }] }];
    const registry = new ToolRegistry();
    registry.update(config.servers.map((server) => ({ config: server, tools: [], resources, prompts })));
    const names = registry.entries().map((e) => [e.llmName, e.kind, e.mcpName]);
    expect(names).toEqual([
      ['docs__get_prompt', 'prompt', 'prompts/get'],
      ['docs__read_resource', 'resource', 'resources/read'],
    ]);
    expect(registry.get('docs__read_resource')?.description).toContain('file:///readme: The readme');
    expect(registry.get('docs__get_prompt')?.description).toContain('greet(who)');
  });

  it('gives a tool without a usable schema the empty object schema', () => {
    const registry = new ToolRegistry();
    registry.update(snapshots({ s: { tools: [{ name: 'bare' } as unknown as Tool] } }));
    expect(registry.get('s__bare')?.inputSchema).toEqual({ type: 'object' });
  });
});
