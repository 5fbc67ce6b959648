/**
 * The loop suite's scenarios on the other transport (loop.test.ts runs each on one): a single call and an
 * isError correction against a server over Streamable HTTP, a denied approval over stdio, and a server over
 * HTTP that crashes mid-run. Then what every provider must carry back from a real server: every MCP content
 * type, and (OpenAI strict mode) optional arguments the model answered with null.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readToolNames, readToolResults } from '../support/fake-providers/index.js';
import { type HttpExample, LAB, PROVIDERS, WEATHER, harness, startHttp, stdio } from './support.js';

let weather: HttpExample;

beforeAll(async () => {
  weather = await startHttp(WEATHER);
});

afterAll(async () => {
  await weather?.close();
});

describe.each(PROVIDERS)('agent loop over %s, other transport', (kind) => {
  const results = (body: unknown) => readToolResults(kind, body);

  it('single call and an isError corrected by the model, against a Streamable HTTP server', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) => {
        if (index === 0)
          return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Atlantis' } }] };
        const [last] = results(body);
        if (last?.isError)
          return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Hangzhou' } }] };
        return { text: `It is ${last?.text}.` };
      },
      { weather: { url: weather.url, type: 'http' } },
    );
    const result = await h.run('Weather in Atlantis?');
    expect(h.host.servers()[0]).toMatchObject({ state: 'ready', era: 'stateless' });
    expect(result.toolCalls.map((c) => [c.arguments.location, c.server, c.status, c.isError])).toEqual([
      ['Atlantis', 'weather', 'ok', true],
      ['Hangzhou', 'weather', 'ok', false],
    ]);
    const [first] = results(h.fake.requests[1]!.body);
    expect(first).toMatchObject({ isError: true });
    expect(first?.text).toContain('Unknown city "Atlantis"');
    expect(result.answer).toBe('It is Hangzhou: 26°C, sunny.');
  });

  it('a denied approval over stdio never reaches the server, and the model is told', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? { toolCalls: [{ name: 'lab__wait', arguments: {} }] }
          : { text: `Told: ${results(body)[0]?.text}` },
      { lab: stdio(LAB, 'deny-lab') },
      { approval: { policy: 'none', approver: async () => 'deny' } },
    );
    const result = await h.run('Wait forever');
    // The server never saw the call: a `wait` that ran would hold the run until cancelled.
    expect(result.toolCalls[0]).toMatchObject({ status: 'denied', approval: { by: 'user' } });
    expect(results(h.fake.requests[1]!.body)[0]).toMatchObject({ isError: true });
    expect(result.answer).toMatch(/^Told: .*Tool call denied: the user said no$/);
  });

  it('a Streamable HTTP server that crashes mid-run: the call fails, its tools leave, the others stay', async () => {
    await using lab = await startHttp(LAB, 'doomed');
    await using h = await harness(
      kind,
      (body, _request, index) => {
        if (index === 0) return { toolCalls: [{ name: 'lab__crash', arguments: {} }] };
        if (index === 1)
          return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'London' } }] };
        return { text: `ok: ${results(body)[0]?.text}` };
      },
      { lab: { url: lab.url }, weather: stdio(WEATHER) },
    );
    const result = await h.run('Crash the lab, then check London');
    expect(result.toolCalls[0]).toMatchObject({ llmName: 'lab__crash', status: 'protocol_error' });
    expect(results(h.fake.requests[1]!.body)[0]?.text).toMatch(
      /^(\[tool error\] )?Tool call to lab\/crash failed/,
    );
    expect(readToolNames(kind, h.fake.requests[0]!.body)).toContain('lab__search');
    // Nothing stays open over HTTP to notice the crash: the failed request is what tells the host.
    expect(readToolNames(kind, h.fake.requests[1]!.body)).toEqual(['weather__get_weather']);
    expect(result.answer).toBe('ok: London: 12°C, drizzle');
    expect(h.host.servers().find((s) => s.name === 'lab')).toMatchObject({ state: 'failed' });
  });

  it('carries text, image, audio, embedded resource and resource link content to the model', async () => {
    await using h = await harness(
      kind,
      (_body, _request, index) =>
        index === 0 ? { toolCalls: [{ name: 'lab__media', arguments: {} }] } : { text: 'seen' },
      { lab: stdio(LAB, 'media-lab') },
    );
    await h.run('Show me everything');
    const [sent] = results(h.fake.requests[1]!.body);
    expect(sent?.isError).toBe(false);
    expect(sent?.images).toBe(1);
    for (const piece of [
      'media-lab media',
      '[audio audio/wav, 12 bytes]',
      '[resource lab://notes/today]\nembedded note',
      '[resource link lab://notes/archive (archive): Older notes]',
    ]) {
      expect(sent?.text).toContain(piece);
    }
  });
});

describe.each(['openai', 'openai-responses'] as const)('%s strict mode', (kind) => {
  it.each([
    false,
    true,
  ])('drops the nulls strict mode asks for optional arguments (stream=%s)', async (stream) => {
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? { toolCalls: [{ name: 'lab__search', arguments: { query: 'mcp', limit: null } }] }
          : { text: readToolResults(kind, body)[0]?.text ?? '' },
      { lab: stdio(LAB, 'strict-lab') },
      { stream },
      { strictTools: true },
    );
    const result = await h.run('Search');
    const tool = (h.fake.requests[0]!.body.tools as any[]).find(
      (t) => (t.function?.name ?? t.name) === 'lab__search',
    );
    const parameters = tool.function?.parameters ?? tool.parameters;
    expect(tool.function?.strict ?? tool.strict).toBe(true);
    expect(parameters.required).toEqual(['query', 'limit']);
    expect(parameters.properties.limit.type).toEqual(['integer', 'null']);
    // The server's schema refuses null for `limit`: it must receive the argument left out.
    expect(result.toolCalls[0]).toMatchObject({ arguments: { query: 'mcp' }, status: 'ok', isError: false });
    expect(result.answer).toBe('strict-lab found: mcp');
  });
});

describe('groups activated per run', () => {
  it('offers only ungrouped servers and the active groups; a tool outside them cannot be called', async () => {
    await using h = await harness(
      'openai',
      (body) =>
        readToolResults('openai', body).length === 0
          ? { toolCalls: [{ id: 'c1', name: 'lab__search', arguments: { query: 'q' } }] }
          : { text: readToolResults('openai', body)[0]?.text ?? '' },
      { weather: stdio(WEATHER), lab: { ...stdio(LAB, 'grouped'), group: ['support', 'ops'] } },
    );
    const outside = await h.agent.run('search', { groups: ['billing'] });
    expect(readToolNames('openai', h.fake.requests[0]!.body)).toEqual(['weather__get_weather']);
    expect(outside.toolCalls[0]).toMatchObject({
      llmName: 'lab__search',
      status: 'unknown_tool',
      server: null,
    });
    expect(outside.answer).toBe(
      '[tool error] Unknown tool "lab__search". Available tools: weather__get_weather.',
    );
    const inside = await h.agent.run('search', { groups: ['ops'] });
    expect(readToolNames('openai', h.fake.requests[2]!.body)).toContain('lab__search');
    expect(inside.toolCalls[0]).toMatchObject({ server: 'lab', status: 'ok' });
    expect(inside.answer).toBe('grouped found: q');
  });
});

describe.each(PROVIDERS)('%s and a long dotted MCP tool name', (kind) => {
  it('offers it under a sanitised llmName of at most 64 characters, and the call reaches the MCP name', async () => {
    const mcpName = `archive.search.${'very_long_'.repeat(8)}v2.final`;
    const llmName = (body: unknown) =>
      readToolNames(kind, body).find((name) => name.startsWith('lab__archive_search_'))!;
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? { toolCalls: [{ name: llmName(body), arguments: {} }] }
          : { text: readToolResults(kind, body)[0]?.text ?? '' },
      { lab: stdio(LAB, 'long-lab') },
    );
    const result = await h.run('Use the long one');
    const offered = llmName(h.fake.requests[0]!.body);
    expect(offered).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(offered).toHaveLength(64);
    expect(result.toolCalls[0]).toMatchObject({ llmName: offered, mcpName, status: 'ok' });
    expect(result.answer).toBe('long-lab long name reached');
  });
});
