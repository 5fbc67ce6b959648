/**
 * One loop suite run against every provider: a local fake speaking the provider's real wire format (with
 * streamed tool-call deltas) drives complete runs of the agent against real MCP servers (the bundled
 * examples and a lab server, over stdio and Streamable HTTP) through the real McpClient.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterTool } from '../../src/agent/middleware.js';
import { readToolNames, readToolResults } from '../support/fake-providers/index.js';
import { type HttpExample, LAB, ORDERS, PROVIDERS, WEATHER, harness, startHttp, stdio } from './support.js';

let orders: HttpExample;
let labHttp: HttpExample;

beforeAll(async () => {
  [orders, labHttp] = await Promise.all([startHttp(ORDERS), startHttp(LAB, 'http-lab')]);
});

afterAll(async () => {
  await Promise.all([orders?.close(), labHttp?.close()]);
});

describe.each(PROVIDERS)('agent loop over %s', (kind) => {
  const results = (body: unknown) => readToolResults(kind, body);

  it('single call without streaming: the plain JSON request/response path', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Beijing' } }] }
          : { text: `It is ${results(body)[0]?.text}.` },
      { weather: stdio(WEATHER) },
      { stream: false },
    );
    const result = await h.run('How is the weather in Beijing?');
    expect(h.fake.requests.map((r) => r.stream)).toEqual([false, false]);
    expect(result.answer).toBe('It is Beijing: 18°C, cloudy.');
    expect(result.toolCalls[0]).toMatchObject({ server: 'weather', mcpName: 'get_weather', status: 'ok' });
  });

  it('single call: discovers, calls weather__get_weather over stdio, feeds the result back, answers', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Hangzhou' } }] }
          : { text: `It is ${results(body)[0]?.text}.` },
      { weather: stdio(WEATHER) },
    );
    const result = await h.run('How is the weather in Hangzhou today?');
    expect(result.stopReason).toBe('answer');
    expect(result.answer).toBe('It is Hangzhou: 26°C, sunny.');
    expect(readToolNames(kind, h.fake.requests[0]!.body)).toEqual(['weather__get_weather']);
    expect(h.fake.requests.every((r) => r.stream)).toBe(true);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      llmName: 'weather__get_weather',
      server: 'weather',
      mcpName: 'get_weather',
      arguments: { location: 'Hangzhou' },
      status: 'ok',
      isError: false,
      approval: { decision: 'approved', by: 'policy' },
      result: { structuredContent: { location: 'Hangzhou', tempC: 26, condition: 'sunny' } },
    });
    const deltas = h.events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(1); // streamed in fragments
    expect(deltas.join('')).toBe(result.answer);
  });

  it('parallel calls: stdio and HTTP servers in one turn, results correlated with their calls', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) => {
        if (index > 0)
          return {
            text: results(body)
              .map((r) => r.text)
              .join(' | '),
          };
        return {
          toolCalls: [
            { name: 'orders__get_order', arguments: { orderId: '12345' } },
            { name: 'weather__get_weather', arguments: { location: 'Beijing' } },
          ],
        };
      },
      { weather: stdio(WEATHER), orders: { url: orders.url } },
    );
    const result = await h.run('Order 12345 and the weather in Beijing?');
    expect(result.toolCalls.map((c) => [c.server, c.status])).toEqual([
      ['orders', 'ok'],
      ['weather', 'ok'],
    ]);
    const sent = results(h.fake.requests[1]!.body);
    expect(sent).toHaveLength(2);
    expect(sent[0]?.text).toContain('"trackingNumber":"SF1001"');
    expect(sent[1]?.text).toBe('Beijing: 18°C, cloudy');
    // Every result answers the call with its id (Gemini without ids correlates by name and order).
    if (kind !== 'gemini') expect(sent.map((r) => r.id)).toEqual(result.toolCalls.map((c) => c.id));
    else expect(sent.map((r) => r.name)).toEqual(['orders__get_order', 'weather__get_weather']);
    expect(result.answer).toBe(`${sent[0]?.text} | Beijing: 18°C, cloudy`);
  });

  it('an isError result goes back as an error and the model corrects itself', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) => {
        if (index === 0)
          return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Atlantis' } }] };
        const [last] = results(body);
        if (last?.isError)
          return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'London' } }] };
        return { text: `Fixed: ${last?.text}` };
      },
      { weather: stdio(WEATHER) },
    );
    const result = await h.run('Weather in Atlantis?');
    expect(result.toolCalls.map((c) => [c.arguments.location, c.status, c.isError])).toEqual([
      ['Atlantis', 'ok', true],
      ['London', 'ok', false],
    ]);
    const [firstResult] = results(h.fake.requests[1]!.body);
    expect(firstResult).toMatchObject({ isError: true });
    expect(firstResult?.text).toContain('Unknown city "Atlantis"');
    expect(result.answer).toBe('Fixed: London: 12°C, drizzle');
  });

  it('a denied approval never reaches the server, and the model is told', async () => {
    const asked: string[] = [];
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? { toolCalls: [{ name: 'orders__get_order', arguments: { orderId: '12345' } }] }
          : { text: `Sorry: ${results(body)[0]?.text}` },
      { orders: { url: orders.url } },
      {
        approval: {
          policy: 'none',
          approver: async (request) => {
            asked.push(`${request.tool.llmName} ${JSON.stringify(request.arguments)}`);
            return { deny: 'the customer must confirm first' };
          },
        },
      },
    );
    const result = await h.run('Look up order 12345');
    expect(asked).toEqual(['orders__get_order {"orderId":"12345"}']);
    expect(result.toolCalls[0]).toMatchObject({
      status: 'denied',
      isError: true,
      approval: { decision: 'denied', by: 'user', reason: 'the customer must confirm first' },
    });
    expect(results(h.fake.requests[1]!.body)[0]).toMatchObject({ isError: true });
    // OpenAI-style providers mark error results in the text; the reason reaches the model either way.
    expect(result.answer).toMatch(/^Sorry: .*Tool call denied: the customer must confirm first$/);
    expect(h.events.some((e) => e.type === 'approval_request')).toBe(true);
  });

  it('a server that crashes mid-run: the call fails clearly, its tools leave, the others keep working', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) => {
        if (index === 0) return { toolCalls: [{ name: 'lab__crash', arguments: {} }] };
        if (index === 1)
          return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Shanghai' } }] };
        return { text: `ok: ${results(body)[0]?.text}` };
      },
      { lab: stdio(LAB, 'stdio-lab'), weather: stdio(WEATHER) },
    );
    const result = await h.run('Crash the lab, then check Shanghai');
    expect(result.toolCalls[0]).toMatchObject({
      llmName: 'lab__crash',
      status: 'protocol_error',
      isError: true,
    });
    expect(result.toolCalls[0]?.error?.message).toBeTruthy();
    expect(readToolNames(kind, h.fake.requests[0]!.body)).toContain('lab__search');
    // Between turns the registry dropped the dead server's tools; the weather server never noticed.
    expect(readToolNames(kind, h.fake.requests[1]!.body)).toEqual(['weather__get_weather']);
    expect(result.toolCalls[1]).toMatchObject({ server: 'weather', status: 'ok' });
    expect(result.answer).toBe('ok: Shanghai: 24°C, light rain');
    expect(h.host.servers().find((s) => s.name === 'lab')?.state).toBe('failed');
  });

  it.each([
    'stdio',
    'http',
    'handshake',
  ] as const)('list_changed (over %s) refreshes the registry between turns, not during one', async (transport) => {
    await using lab = transport === 'http' ? await startHttp(LAB, 'http-lab') : undefined;
    const label = transport === 'http' ? 'http-lab' : 'stdio-lab';
    let toolsChanged!: () => void;
    const changed = new Promise<void>((resolve) => (toolsChanged = resolve));
    await using h = await harness(
      kind,
      (body, _request, index) => {
        if (index === 0) return { toolCalls: [{ name: 'lab__add_tool', arguments: {} }] };
        if (index === 1) return { toolCalls: [{ name: 'lab__extra_tool', arguments: {} }] };
        return { text: results(body)[0]?.text ?? '' };
      },
      {
        // handshake: the same server over stdio, pinned to the 2025-11-25 revision (initialize, legacy session)
        lab: lab
          ? { url: lab.url }
          : { ...stdio(LAB, label), ...(transport === 'handshake' ? { protocolVersion: '2025-11-25' } : {}) },
      },
      {
        // Holds the turn open until the server's notification has arrived, so the test does not race it.
        middleware: [
          afterTool(async (context) => {
            if (context.call.name === 'lab__add_tool') await changed;
            return undefined;
          }),
        ],
      },
    );
    h.host.on((event) => {
      if (event.type === 'list_changed' && event.list === 'toolsListChanged') toolsChanged();
    });
    const result = await h.run('Add a tool and use it');
    expect(h.host.servers()[0]?.era).toBe(transport === 'handshake' ? 'handshake' : 'stateless');
    expect(readToolNames(kind, h.fake.requests[0]!.body)).not.toContain('lab__extra_tool');
    expect(readToolNames(kind, h.fake.requests[1]!.body)).toContain('lab__extra_tool');
    expect(result.toolCalls.map((c) => [c.llmName, c.status])).toEqual([
      ['lab__add_tool', 'ok'],
      ['lab__extra_tool', 'ok'],
    ]);
    expect(result.answer).toBe(`extra from ${label}`);
    expect(
      h.events.some(
        (e) => e.type === 'registry' && e.step === 2 && e.change?.added.includes('lab__extra_tool'),
      ),
    ).toBe(true);
  });

  it('name collisions across two servers get distinct names, and each call reaches its own server', async () => {
    await using h = await harness(
      kind,
      (body, _request, index) =>
        index === 0
          ? {
              toolCalls: [
                { name: 'lab_x__search', arguments: { query: 'q1' } },
                { name: 'lab_x__search_2', arguments: { query: 'q2' } },
              ],
            }
          : {
              text: results(body)
                .map((r) => r.text)
                .join(' / '),
            },
      // "lab.x" and "lab_x" both sanitise to lab_x: one over stdio, one over Streamable HTTP.
      { 'lab.x': stdio(LAB, 'stdio-lab'), lab_x: { url: labHttp.url, type: 'http' } },
    );
    const result = await h.run('Search both');
    const names = readToolNames(kind, h.fake.requests[0]!.body);
    expect(names.filter((n) => n.startsWith('lab_x__search'))).toEqual(['lab_x__search', 'lab_x__search_2']);
    expect(result.toolCalls.map((c) => [c.llmName, c.server])).toEqual([
      ['lab_x__search', 'lab.x'],
      ['lab_x__search_2', 'lab_x'],
    ]);
    expect(result.answer).toBe('stdio-lab found: q1 / http-lab found: q2');
  });
});
