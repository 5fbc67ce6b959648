/**
 * 2026-07-28 basic/patterns/subscriptions over real HTTP with the real McpServer: the acknowledgement is the
 * first event, only the requested notification types follow, each tagged with the subscription id; the
 * concurrent-listen cap refuses with 400, and a client closing its stream frees its slot.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Listening, McpServer, listen } from '../../src/server/index.js';
import { delay } from '../../src/util/abort.js';
import { modern, post } from './http/helpers.js';
import { MODERN, validateEmitted, waitFor } from './support.js';

let http: Listening | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Opens a listen stream; collects its events (schema-checked) until the returned `close` is called. */
async function openListen(url: string, id: number, notifications: Record<string, unknown>) {
  const controller = new AbortController();
  const { body, headers } = modern('subscriptions/listen', { notifications }, id);
  const response = await post(url, body, headers, controller.signal);
  const events: Array<Record<string, any>> = [];
  if (response.headers.get('content-type') !== 'text/event-stream') {
    return { response, events, close: () => controller.abort() };
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (!data) continue;
        const message = JSON.parse(data.slice(6));
        validateEmitted(MODERN, message, 'subscriptions/listen');
        events.push(message);
      }
    }
  })();
  return { response, events, close: () => controller.abort() };
}

describe('subscriptions/listen over HTTP', () => {
  it('acknowledges first, filters, tags, caps concurrent listens, and frees a slot on disconnect', async () => {
    const server = new McpServer({ name: 'listen', version: '1' }, { maxListens: 1 });
    server.registerTool('seed', {}, () => ({ content: [] }));
    http = await listen(server, { keepAliveMs: 0 });
    const first = await openListen(http.url, 7, { toolsListChanged: true });
    expect(first.response.status).toBe(200);
    await waitFor(() => first.events.length >= 1);
    expect(first.events[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 7 } },
    });

    // Past the cap: refused with 400 and a JSON-RPC error, not a stream.
    const second = await openListen(http.url, 8, { promptsListChanged: true });
    expect(second.response.status).toBe(400);
    const refusal = await second.response.json();
    validateEmitted(MODERN, refusal);
    expect(refusal).toMatchObject({ id: 8, error: { code: -32600 } });

    server.registerPrompt('p', {}, () => ({ messages: [] })); // not asked for: never sent
    server.registerTool('added', {}, () => ({ content: [] }));
    await waitFor(() => first.events.length >= 2);
    await delay(50);
    expect(first.events.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 7 } },
      },
    ]);

    // Closing the stream ends the subscription: the slot is free again.
    first.close();
    let third: Awaited<ReturnType<typeof openListen>> | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      third = await openListen(http.url, 9, { toolsListChanged: true });
      if (third.response.status === 200) break;
      await third.response.text();
      await delay(20);
    }
    expect(third?.response.status).toBe(200);
    await waitFor(() => (third?.events.length ?? 0) >= 1);
    third?.close();
  });
});
