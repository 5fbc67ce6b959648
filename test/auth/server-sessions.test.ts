/**
 * The handshake era behind the same guard: Streamable HTTP sessions (2025-03-26..2025-11-25) and the 2024-11-05
 * HTTP+SSE transport, driven by the official SDK's client, with every request carrying the token. A session id
 * is bound to the principal that opened it (2025-11-25 basic/security_best_practices: Session Hijacking).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Protected, bearer, metadataUrlOf, startProtected } from './support.js';

const HANDSHAKE = '2025-11-25';
let p: Protected;
let alice: string;
let bob: string;

beforeAll(async () => {
  p = await startProtected({
    clients: [
      {
        client_id: 'bob-machine',
        client_secret: 'bob-machine-secret-0123456789abcdef',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
  });
  alice = await p.token();
  bob = (
    await p.as.clientCredentials({
      resource: p.url,
      scope: 'mcp:tools',
      client: { clientId: 'bob-machine', clientSecret: 'bob-machine-secret-0123456789abcdef' },
    })
  ).access_token;
});

afterAll(async () => {
  await p?.[Symbol.asyncDispose]();
});

/** A fetch that presents the token on every request (POSTs, GET streams, the SSE EventSource). */
function authorizedFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', bearer(token));
    return fetch(input, { ...init, headers });
  };
}

async function initialize(token: string): Promise<string> {
  const response = await fetch(p.url, {
    method: 'POST',
    headers: {
      authorization: bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(response.status).toBe(200);
  await response.text();
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  return sessionId as string;
}

function inSession(sessionId: string, token: string, method: string, params: Record<string, unknown> = {}) {
  return fetch(p.url, {
    method: 'POST',
    headers: {
      authorization: bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': HANDSHAKE,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }),
  });
}

describe('Streamable HTTP sessions with a token', () => {
  it('serve the official SDK client; ctx.auth reaches the handler', async () => {
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(p.url), { fetch: authorizedFetch(alice) }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('whoami');
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.structuredContent).toMatchObject({
        subject: 'mcp-machine',
        scopes: ['mcp:tools'],
        sawCredentials: false,
      });
    } finally {
      await client.close();
    }
  });

  it('refuse initialize without a token', async () => {
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(p.url)))).rejects.toThrow();
    const raw = await fetch(p.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrlOf(p.url)}"`);
  });

  it('are bound to the principal that opened them: another token finds no session', async () => {
    const sessionId = await initialize(alice);
    const stolen = await inSession(sessionId, bob, 'tools/list');
    expect(stolen.status).toBe(404);
    const stream = await fetch(p.url, {
      headers: { authorization: bearer(bob), accept: 'text/event-stream', 'mcp-session-id': sessionId },
    });
    expect(stream.status).toBe(404);
    const own = await inSession(sessionId, alice, 'tools/list');
    expect(own.status).toBe(200);
    await own.text();
    const ended = await fetch(p.url, {
      method: 'DELETE',
      headers: { authorization: bearer(bob), 'mcp-session-id': sessionId },
    });
    expect(ended.status).toBe(404);
  });

  it('answer a tool call without the tool scope 403 insufficient_scope', async () => {
    const sessionId = await initialize(alice);
    const response = await inSession(sessionId, alice, 'tools/call', { name: 'purge', arguments: {} });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(response.headers.get('www-authenticate')).toContain('scope="mcp:admin"');
  });
});

describe('HTTP+SSE (2024-11-05) with a token', () => {
  it('serves the official SDK SSE client; ctx.auth reaches the handler', async () => {
    const client = new Client({ name: 'sdk-sse', version: '1.0.0' });
    const fetchWithToken = authorizedFetch(alice);
    await client.connect(
      new SSEClientTransport(new URL('/sse', p.url), {
        fetch: fetchWithToken,
        eventSourceInit: { fetch: fetchWithToken },
      }),
    );
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.structuredContent).toMatchObject({
        subject: 'mcp-machine',
        clientId: 'mcp-machine',
        sawCredentials: false,
      });
    } finally {
      await client.close();
    }
  });

  it('refuses the stream without a token, and posts to it with another token', async () => {
    const anonymous = await fetch(new URL('/sse', p.url), { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrlOf(p.url)}"`,
    );

    const controller = new AbortController();
    const stream = await fetch(new URL('/sse', p.url), {
      headers: { accept: 'text/event-stream', authorization: bearer(alice) },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text)?.[1] as string;
    const post = (token: string) =>
      fetch(new URL(endpoint, p.url), {
        method: 'POST',
        headers: { authorization: bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
    expect((await post(bob)).status).toBe(404);
    expect((await post(alice)).status).toBe(202);
    controller.abort();
  });
});
