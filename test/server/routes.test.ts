/** The one route table: which era serves which method, capability gates, and refusing a method twice. */
import { describe, expect, it } from 'vitest';
import type { ServerCapabilities } from '../../src/mcp/types.js';
import { CORE_ROUTES, type Route, RouteTable, advertises } from '../../src/server/routes.js';

const EVERYTHING: ServerCapabilities = {
  logging: {},
  completions: {},
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: true },
};

const BOTH_ERAS = [
  'completion/complete',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'tools/call',
  'tools/list',
];

const sorted = (map: ReadonlyMap<string, unknown>) => [...map.keys()].sort();

describe('the route table', () => {
  it('serves the lifecycle, logging and resources/subscribe on sessions, discover and listen statelessly', () => {
    const table = new RouteTable(CORE_ROUTES, () => EVERYTHING);
    expect(sorted(table.handshake)).toEqual(
      [
        ...BOTH_ERAS,
        'initialize',
        'logging/setLevel',
        'ping',
        'resources/subscribe',
        'resources/unsubscribe',
      ].sort(),
    );
    expect(sorted(table.stateless)).toEqual([...BOTH_ERAS, 'server/discover', 'subscriptions/listen'].sort());
    // basic/lifecycle: only initialize and ping come before the handshake completes.
    const early = [...table.handshake.values()].filter((route) => route.beforeInitialize);
    expect(early.map((route) => route.method).sort()).toEqual(['initialize', 'ping']);
    // basic/patterns/mrtr: the three methods whose result may be input_required.
    const mrtr = [...table.stateless.values()].filter((route) => route.inputRequired);
    expect(mrtr.map((route) => route.method).sort()).toEqual(['prompts/get', 'resources/read', 'tools/call']);
  });

  it('leaves out a method whose capability the server does not advertise', () => {
    let capabilities: ServerCapabilities = { tools: {} };
    const gated: Route = {
      method: 'example/run',
      era: 'both',
      capability: ['experimental', 'com.example/run'],
      handle: () => ({}),
    };
    const table = new RouteTable(CORE_ROUTES, () => capabilities);
    expect(table.stateless.has('tools/list')).toBe(true);
    expect(table.stateless.has('prompts/list')).toBe(false);
    expect(table.handshake.has('resources/subscribe')).toBe(false);
    // Methods every server answers have no gate.
    expect(table.handshake.has('ping')).toBe(true);
    expect(table.stateless.has('server/discover')).toBe(true);
    capabilities = { experimental: { 'com.example/run': {} } };
    table.add([gated]);
    expect(table.stateless.get('example/run')).toBe(gated);
    expect(table.handshake.get('example/run')).toBe(gated);
    expect(table.stateless.has('tools/list')).toBe(false);
  });

  it('refuses a method served already, adding nothing of the batch', () => {
    const table = new RouteTable(CORE_ROUTES, () => EVERYTHING);
    const fresh: Route = { method: 'example/fresh', era: 'stateless', handle: () => ({}) };
    const clash: Route = { method: 'tools/list', era: 'both', handle: () => ({}) };
    expect(() => table.add([fresh, clash])).toThrow('method tools/list is already served');
    expect(() => table.add([fresh, fresh])).toThrow('method example/fresh is already served');
    expect(table.stateless.has('example/fresh')).toBe(false);
    table.add([fresh]);
    expect(table.stateless.get('example/fresh')).toBe(fresh);
    expect(table.handshake.has('example/fresh')).toBe(false);
  });

  it('reads a capability path: an empty object is support, false or absent is none', () => {
    const capabilities: ServerCapabilities = {
      resources: { subscribe: false, listChanged: true },
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    };
    expect(advertises(capabilities, ['resources'])).toBe(true);
    expect(advertises(capabilities, ['resources', 'listChanged'])).toBe(true);
    expect(advertises(capabilities, ['resources', 'subscribe'])).toBe(false);
    expect(advertises(capabilities, ['extensions', 'io.modelcontextprotocol/tasks'])).toBe(true);
    expect(advertises(capabilities, ['extensions', 'io.modelcontextprotocol/skills'])).toBe(false);
    expect(advertises(capabilities, ['extensions', 'io.modelcontextprotocol/tasks', 'deep'])).toBe(false);
    expect(advertises(capabilities, ['tools'])).toBe(false);
    // An inherited member is not an advertised capability.
    expect(advertises(capabilities, ['resources', 'toString'])).toBe(false);
  });
});
