/**
 * Tool search over 500 tools from 10 real stdio servers: the model is sent `search_tools` and the always-on
 * set, searches with the task's own words, and calls the tool the search ranked first. The fake model is
 * honest: it knows only what the requests carry, and calls the first tool the search returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { McpHost } from '../../src/agent/host.js';
import { ToolSearch } from '../../src/agent/tool-search.js';
import { createModel } from '../../src/providers/index.js';
import { readToolNames, readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { ROOT, config, stdio } from './support.js';

const CATALOG = `${ROOT}test/agent/fixtures/catalog-server.mjs`;
const DOMAINS = [
  'weather',
  'finance',
  'mail',
  'calendar',
  'translate',
  'code',
  'maps',
  'music',
  'files',
  'database',
];
/** A task, the few words a model would search with (as `search_tools` asks), and the tool it needs. */
const TASKS: Array<[string, string, string]> = [
  [
    'What will the weather be like in Paris over the next three days?',
    'weather forecast',
    'weather__get_forecast',
  ],
  ['Convert 100 US dollars to euros', 'convert dollars to euros', 'finance__convert_currency'],
  ['Send an email to alice@example.com about the budget', 'send email', 'mail__send_email'],
  ['Schedule a meeting with Bob next Monday at 10', 'schedule a meeting', 'calendar__create_event'],
  ['Translate "good morning" into Japanese', 'translate text to Japanese', 'translate__translate_text'],
  ['Open a GitHub issue about the login bug', 'open GitHub issue', 'code__create_issue'],
  ['Driving directions from Berlin to Munich', 'driving directions', 'maps__get_directions'],
  ['Play some jazz', 'play jazz music', 'music__play_music'],
  ['Delete the file report.pdf', 'delete a file', 'files__delete_file'],
  ['Run a SQL query that counts the users', 'run SQL query', 'database__run_query'],
];

let host: McpHost;
beforeAll(async () => {
  const servers = Object.fromEntries(
    DOMAINS.map((domain) => [domain, { ...stdio(CATALOG), args: [CATALOG, domain] }]),
  );
  host = await McpHost.start(config(servers), {});
}, 60_000);
afterAll(async () => {
  await host?.close();
});

describe('tool search with 500 tools from 10 servers', () => {
  it('offers search_tools and the always-on set, then what was found; the right tool is called', async () => {
    expect(host.registry.size).toBe(500);
    await using fake = await startFakeProvider('openai', (body) => {
      const results = readToolResults('openai', body);
      const last = body.messages.at(-1);
      // The model searches in a few words of its own, as search_tools asks.
      const query = TASKS.find(([task]) => task === last.content)?.[1];
      if (last.role === 'user') return { toolCalls: [{ name: 'search_tools', arguments: { query } }] };
      const found = /^- ([\w-]+):/m.exec(results[0]?.text ?? '');
      if (results[0]?.text.startsWith('Tools found') && found)
        return { toolCalls: [{ name: found[1]!, arguments: {} }] };
      return { text: results[0]?.text ?? '' };
    });
    const agent = new Agent({
      model: createModel(fake.spec('gpt-test'), fake.env),
      host,
      approval: { policy: 'all' },
      toolSearch: { alwaysOn: ['weather__get_current_weather'] },
    });
    for (const [task, , expected] of TASKS) {
      const before = fake.requests.length;
      const result = await agent.run(task);
      expect(result.toolCalls.map((call) => call.llmName)).toEqual(['search_tools', expected]);
      expect(result.answer).toBe(`${expected} done`);
      const offered = fake.requests.slice(before).map((request) => readToolNames('openai', request.body));
      expect(offered[0]).toEqual(['search_tools', 'weather__get_current_weather']);
      // After the search: the same prefix (prompt caches keep hitting), then at most 5 found tools.
      expect(offered[1]?.slice(0, 2)).toEqual(['search_tools', 'weather__get_current_weather']);
      expect(offered[1]?.length).toBeLessThanOrEqual(7);
      expect(offered[1]).toContain(expected);
      expect(offered[2]).toEqual(offered[1]);
    }
  });

  it('finds the right tool among its five best for the task itself, unrephrased', async () => {
    const search = new ToolSearch({});
    for (const [task, , expected] of TASKS) {
      const { found } = await search.search(host.registry.definitions(), { query: task }, new Set());
      expect(found.map((tool) => tool.name)).toContain(expected);
    }
  });

  it('sends a fraction of the bytes of every definition', async () => {
    const all = host.registry.definitions();
    const search = new ToolSearch({});
    expect(search.active(all)).toBe(true);
    const loaded = new Set<string>();
    await search.search(all, { query: 'send an email' }, loaded);
    const bytes = (tools: readonly unknown[]) => JSON.stringify(tools).length;
    const withSearch = bytes(search.offered(all, loaded));
    expect(loaded.size).toBe(5);
    expect(withSearch * 20).toBeLessThan(bytes(all));
  });

  it('stays off for a handful of tools, and can be turned off', () => {
    const few = host.registry.definitions().slice(0, 10);
    expect(new ToolSearch({}).active(few)).toBe(false);
    expect(new ToolSearch({ enabled: false }).active(host.registry.definitions())).toBe(false);
    expect(new ToolSearch({ enabled: true }).active(few)).toBe(true);
  });
});
