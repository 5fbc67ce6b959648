import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, jsonHeaders, post, readSse, start, takeSse } from './http/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.http.close();
  h = undefined;
});

const INIT = (version = '2025-11-25', id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: version,
    capabilities: { elicitation: {} },
    clientInfo: { name: 't', version: '1' },
  },
});

async function initialize(url: string, version = '2025-11-25'): Promise<string> {
  const response = await post(url, INIT(version), jsonHeaders());
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
  await response.text();
  const initialized = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    sessionHeaders(sessionId as string, version),
  );
  expect(initialized.status).toBe(202);
  return sessionId as string;
}

function sessionHeaders(sessionId: string, version = '2025-11-25'): Record<string, string> {
  return jsonHeaders({ 'mcp-session-id': sessionId, 'mcp-protocol-version': version });
}

const call = (name: string, id: number | string = 2) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('handshake-era sessions (2025-03-26..2025-11-25)', () => {
  it('initialize mints an unguessable visible-ASCII session id; requests need it; unknown ids are 404', async () => {
    h = await start();
    const a = await initialize(h.url);
    const b = await initialize(h.url);
    expect(a).not.toBe(b);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const ok = await post(h.url, list, sessionHeaders(a));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
    expect((await post(h.url, list, jsonHeaders())).status).toBe(400);
    expect((await post(h.url, list, sessionHeaders('not-a-session'))).status).toBe(404);
    expect((await post(h.url, list, sessionHeaders(a, '1999-01-01'))).status).toBe(400);
  });

  it('DELETE ends a session: later requests get 404', async () => {
    h = await start();
    const id = await initialize(h.url);
    const deleted = await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(deleted.status).toBe(200);
    expect(h.http.httpServer.listening).toBe(true);
    const after = await post(h.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, sessionHeaders(id));
    expect(after.status).toBe(404);
    expect((await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(404);
    expect(h.server.sessions[0]?.closed).toBe(true);
  });

  it('a rejected initialize creates no session', async () => {
    h = await start({ maxSessions: 1 });
    const bad = { ...INIT(), params: { capabilities: {} } };
    const response = await post(h.url, bad, jsonHeaders());
    expect(await response.json()).toMatchObject({ error: { code: -32602 } });
    expect(response.headers.get('mcp-session-id')).toBeNull();
    // The cap of one is still free.
    await initialize(h.url);
  });

  it('caps sessions with 503', async () => {
    h = await start({ maxSessions: 2 });
    await initialize(h.url);
    await initialize(h.url);
    const third = await post(h.url, INIT(), jsonHeaders());
    expect(third.status).toBe(503);
    expect(third.headers.get('mcp-session-id')).toBeNull();
  });

  it('expires idle sessions, which frees their place under the cap', async () => {
    // Apart from the cap test: on a loaded machine the idle timeout could fire between its initializes.
    h = await start({ maxSessions: 1, sessionIdleTimeoutMs: 150 });
    const first = await initialize(h.url);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(
      (await post(h.url, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, sessionHeaders(first))).status,
    ).toBe(404);
    await initialize(h.url);
  });

  it('notifications-only and responses-only POSTs are 202; batches only on 2025-03-26', async () => {
    h = await start();
    const modernSession = await initialize(h.url, '2025-06-18');
    const batch = [
      { jsonrpc: '2.0', id: 10, method: 'tools/list' },
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
    ];
    expect((await post(h.url, batch, sessionHeaders(modernSession, '2025-06-18'))).status).toBe(400);
    const old = await initialize(h.url, '2025-03-26');
    const response = await post(h.url, batch, sessionHeaders(old, '2025-03-26'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Array<{ id: number }>;
    expect(body.map((r) => r.id).sort()).toEqual([10, 11]);
    const stray = await post(
      h.url,
      { jsonrpc: '2.0', id: 99, result: {} },
      sessionHeaders(old, '2025-03-26'),
    );
    expect(stray.status).toBe(202);
  });

  it('answers on an SSE stream with event ids once a request sends notifications first', async () => {
    h = await start();
    const id = await initialize(h.url);
    const response = await post(
      h.url,
      { ...call('progress'), params: { name: 'progress', arguments: {}, _meta: { progressToken: 7 } } },
      sessionHeaders(id),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe(id);
    const { events, retry } = await readSse(response);
    // 2025-11-25: a priming event (id, empty data) first, with the retry hint.
    expect(events[0]).toMatchObject({ data: '' });
    expect(events[0]?.id).toBeTruthy();
    expect(retry).toEqual([1000]);
    const messages = events.slice(1).map((event) => JSON.parse(event.data));
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ text: 'done' }] } });
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  });

  it('GET opens the one standalone stream (409 for a second) carrying unrelated messages', async () => {
    h = await start();
    const id = await initialize(h.url);
    const controller = new AbortController();
    const get = await fetch(h.url, {
      headers: { ...sessionHeaders(id), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(get.status).toBe(200);
    const second = await fetch(h.url, { headers: { ...sessionHeaders(id), accept: 'text/event-stream' } });
    expect(second.status).toBe(409);
    await second.text();
    const announce = await post(h.url, call('announce'), sessionHeaders(id));
    expect(await announce.json()).toMatchObject({ id: 2, result: {} });
    const events = await takeSse(get, 2);
    expect(events[0]?.data).toBe('');
    expect(JSON.parse(events[1]?.data ?? '{}')).toMatchObject({ method: 'notifications/tools/list_changed' });
    controller.abort();
    expect((await fetch(h.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
  });

  it('SEP-1699 polling: the server closes the POST stream mid-call, the client resumes with Last-Event-ID', async () => {
    h = await start({ retryMs: 50 });
    const id = await initialize(h.url);
    const response = await post(h.url, call('reconnect', 'r1'), sessionHeaders(id));
    const first = await readSse(response);
    expect(first.retry).toContain(50);
    const lastId = first.events.at(-1)?.id as string;
    expect(first.events.map((event) => event.data.includes('before close') || event.data === '')).toEqual([
      true,
      true,
    ]);
    const resumed = await fetch(h.url, {
      headers: { ...sessionHeaders(id), accept: 'text/event-stream', 'last-event-id': lastId },
    });
    expect(resumed.status).toBe(200);
    const rest = await readSse(resumed);
    const messages = rest.events.map((event) => JSON.parse(event.data));
    expect(messages[0]).toMatchObject({ params: { data: 'after close' } });
    expect(messages.at(-1)).toMatchObject({ id: 'r1', result: { content: [{ text: 'reconnected' }] } });
  });

  it("SEP-1699 polling: a handler's closeStandaloneSSEStream ends the GET stream's connection with a retry", async () => {
    h = await start({ retryMs: 50 });
    const id = await initialize(h.url);
    const get = await fetch(h.url, { headers: { ...sessionHeaders(id), accept: 'text/event-stream' } });
    expect(get.status).toBe(200);
    const closed = await post(h.url, call('close_get'), sessionHeaders(id));
    expect(await closed.json()).toMatchObject({ id: 2, result: { content: [{ text: 'closed' }] } });
    // The body ends (readSse returns) only because the server closed the stream.
    const { events, retry } = await readSse(get);
    expect(events[0]?.data).toBe('');
    expect(retry).toContain(50);
  });

  it('replays only what followed Last-Event-ID after the client lost the connection', async () => {
    h = await start();
    const id = await initialize(h.url);
    const controller = new AbortController();
    const response = await post(
      h.url,
      { ...call('progress'), params: { name: 'progress', arguments: {}, _meta: { progressToken: 1 } } },
      sessionHeaders(id),
      controller.signal,
    );
    const seen = await takeSse(response, 2); // priming + first progress, then the client drops
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const resumed = await fetch(h.url, {
      headers: { ...sessionHeaders(id), accept: 'text/event-stream', 'last-event-id': seen[1]?.id as string },
    });
    const rest = (await readSse(resumed)).events.map((event) => JSON.parse(event.data));
    expect(rest.map((m) => m.params?.progress ?? 'result')).toEqual([2, 3, 'result']);
  });
});

describe('GET stream resumption', () => {
  it('replays what the GET stream carried while the client was away, after its Last-Event-ID', async () => {
    h = await start();
    const id = await initialize(h.url);
    const getHeaders = { ...sessionHeaders(id), accept: 'text/event-stream' };
    const controller = new AbortController();
    const get = await fetch(h.url, { headers: getHeaders, signal: controller.signal });
    await (await post(h.url, call('announce', 'a1'), sessionHeaders(id))).json();
    const [, first] = await takeSse(get, 2);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await (await post(h.url, call('announce', 'a2'), sessionHeaders(id))).json();
    const resumed = await fetch(h.url, { headers: { ...getHeaders, 'last-event-id': first?.id as string } });
    expect(resumed.status).toBe(200);
    const [missed] = await takeSse(resumed, 1);
    expect(missed?.id).not.toBe(first?.id);
    expect(JSON.parse(missed?.data ?? '{}')).toMatchObject({ method: 'notifications/tools/list_changed' });
  });
});

describe('queued GET-stream messages', () => {
  it('delivers what was sent while no GET stream was open to the next one, once', async () => {
    h = await start();
    const id = await initialize(h.url);
    await (await post(h.url, call('announce', 'q1'), sessionHeaders(id))).json();
    const controller = new AbortController();
    const get = await fetch(h.url, {
      headers: { ...sessionHeaders(id), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    const [priming, queued] = await takeSse(get, 2);
    expect(priming?.data).toBe('');
    expect(JSON.parse(queued?.data ?? '{}')).toMatchObject({ method: 'notifications/tools/list_changed' });
    controller.abort();
  });
});

describe('bounded event store', () => {
  it('keeps only the last maxEventsPerStream events of a stream for replay', async () => {
    h = await start({ maxEventsPerStream: 2 });
    const id = await initialize(h.url);
    const controller = new AbortController();
    const response = await post(
      h.url,
      { ...call('progress'), params: { name: 'progress', arguments: {}, _meta: { progressToken: 1 } } },
      sessionHeaders(id),
      controller.signal,
    );
    const [priming] = await takeSse(response, 1);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Four events followed the priming one (three progress, one result); only the last two are still held.
    const resumed = await fetch(h.url, {
      headers: { ...sessionHeaders(id), accept: 'text/event-stream', 'last-event-id': priming?.id as string },
    });
    const rest = (await readSse(resumed)).events.map((event) => JSON.parse(event.data));
    expect(rest.map((m) => m.params?.progress ?? 'result')).toEqual([3, 'result']);
  });
});

describe('the official SDK client (1.x) as a real peer', () => {
  it('lists and calls tools, follows progress and answers an elicitation on the POST stream', async () => {
    h = await start();
    const client = new Client({ name: 'sdk', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeTruthy();
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain('echo');
      const progress: number[] = [];
      const result = await client.callTool({ name: 'progress', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(progress).toEqual([1, 2, 3]);
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
      const elicited = await client.callTool({ name: 'elicit', arguments: {} });
      expect(JSON.parse((elicited.content as Array<{ text: string }>)[0]?.text ?? '{}')).toEqual({
        action: 'accept',
        content: { name: 'Ada' },
      });
      await transport.terminateSession();
      expect(h.http.httpServer.listening).toBe(true);
    } finally {
      await client.close();
    }
  });
});
