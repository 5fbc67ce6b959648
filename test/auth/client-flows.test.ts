/**
 * The OAuth client's normal flows against a protected MCP server on 127.0.0.1: one refresh for many refused
 * requests, step-up keeping earlier scopes, the token file, tokens only for the server's origin, DPoP proofs.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { isAuthorizationError } from '../../src/auth/client/errors.js';
import { OAuthClientProvider } from '../../src/auth/client/provider.js';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../src/auth/client/store.js';
import { headlessUserAgent } from '../../src/auth/client/user-agent.js';
import { McpClient } from '../../src/client/client.js';
import { type Harness, type HarnessOptions, startHarness } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: HarnessOptions, store: TokenStore = new MemoryTokenStore()) {
  const h = await startHarness(options);
  cleanups.push(() => h.close());
  const oauth = new OAuthClientProvider({
    serverUrl: h.mcpUrl,
    grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
    store,
  });
  const client = await McpClient.connect(h.mcpUrl, { oauth, timeoutMs: 10_000 });
  cleanups.push(() => client.close());
  return { h, oauth, client };
}

const tokenRequests = (h: Harness, grant: string) =>
  h.requests.filter((request) => request.path === '/token' && request.form.get('grant_type') === grant);

describe('OAuth client flows', () => {
  it('authorizes on the first 401 with PKCE, state and the same resource on both requests', async () => {
    const { h, client } = await setup({});
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([
      { type: 'text', text: 'ok' },
    ]);
    const [authorize] = h.requests.filter((request) => request.path === '/authorize');
    expect(authorize?.query.get('code_challenge_method')).toBe('S256');
    expect(authorize?.query.get('state')).toMatch(/.{16,}/);
    expect(authorize?.query.get('resource')).toBe(h.mcpUrl);
    expect(tokenRequests(h, 'authorization_code')[0]?.form.get('resource')).toBe(h.mcpUrl);
    expect(tokenRequests(h, 'authorization_code')[0]?.form.get('code_verifier')).toMatch(/.{43,}/);
  });

  it('refreshes once however many requests are refused at the same time', async () => {
    const { h, client } = await setup({ refreshTokens: true });
    h.tokens.clear();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => client.callTool({ name: 'echo', arguments: {} })),
    );
    expect(results).toHaveLength(6);
    expect(tokenRequests(h, 'refresh_token')).toHaveLength(1);
    expect(h.count('/authorize')).toBe(1);
  });

  it('steps up on 403 insufficient_scope with the union of earlier and challenged scopes', async () => {
    const { h, client } = await setup({
      resourceMetadata: () => ({ scopes_supported: ['read'] }),
      requiredScopes: { 'tools/call': ['write'] },
    });
    await client.callTool({ name: 'echo', arguments: {} });
    const scopes = h.requests
      .filter((request) => request.path === '/authorize')
      .map((r) => r.query.get('scope'));
    expect(scopes).toEqual(['read', 'read write']);
  });

  it('keeps tokens in a 0600 file and reuses them on the next run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-tokens-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'agentforge', 'tokens.json');
    const { h } = await setup({}, new FileTokenStore(path));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'agentforge'))).mode & 0o777).toBe(0o700);

    const again = new OAuthClientProvider({
      serverUrl: h.mcpUrl,
      grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
      store: new FileTokenStore(path),
    });
    const second = await McpClient.connect(h.mcpUrl, { oauth: again, timeoutMs: 10_000 });
    cleanups.push(() => second.close());
    await second.listTools();
    expect(h.count('/authorize')).toBe(1);
    expect((await again.status())?.issuer).toBe(h.base);
  });

  it('never puts the token on a request to another origin', async () => {
    const { oauth, h } = await setup({});
    const own = await oauth.headersFor({ method: 'POST', url: new URL(h.mcpUrl) });
    expect(own.authorization).toMatch(/^Bearer access-/);
    const other = await oauth.headersFor({ method: 'POST', url: new URL('https://elsewhere.example/mcp') });
    expect(other).toEqual({});
  });

  it('gives up with an error that names no token when the server refuses every token', async () => {
    const h = await startHarness({
      gate: () => ({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"' }),
    });
    cleanups.push(() => h.close());
    const oauth = new OAuthClientProvider({
      serverUrl: h.mcpUrl,
      grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
      store: new MemoryTokenStore(),
    });
    const error = await McpClient.connect(h.mcpUrl, { oauth, timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(isAuthorizationError(error, 'unauthorized')).toBe(true);
    expect(String((error as Error).message)).not.toMatch(/access-\d/);
    expect(h.count('/authorize')).toBe(3);
  });

  it('binds tokens with DPoP: a proof at the token endpoint and a fresh one per MCP request', async () => {
    const { h, client } = await setup({ dpop: true });
    await client.callTool({ name: 'echo', arguments: {} });
    expect(tokenRequests(h, 'authorization_code')[0]?.headers.dpop).toBeDefined();
    const mcp = h.requests.filter((request) => request.path === '/mcp' && request.headers.dpop);
    expect(mcp.length).toBeGreaterThanOrEqual(2);
    const jtis = new Set<unknown>();
    for (const request of mcp) {
      expect(request.headers.authorization).toMatch(/^DPoP /);
      const proof = request.headers.dpop as string;
      expect(decodeProtectedHeader(proof).typ).toBe('dpop+jwt');
      const claims = decodeJwt(proof);
      expect(claims.htm).toBe('POST');
      expect(claims.htu).toBe(h.mcpUrl);
      expect(typeof claims.ath).toBe('string');
      jtis.add(claims.jti);
    }
    expect(jtis.size).toBe(mcp.length);
  });
});

describe('OAuth on every HTTP request of a session (2025-11-25)', () => {
  it('sends a DPoP proof bound to GET on the event stream and to DELETE when the session ends', async () => {
    const h = await startHarness({ dpop: true });
    cleanups.push(() => h.close());
    const oauth = new OAuthClientProvider({
      serverUrl: h.mcpUrl,
      grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
      store: new MemoryTokenStore(),
    });
    const client = await McpClient.connect(h.mcpUrl, {
      oauth,
      protocolVersion: '2025-11-25',
      timeoutMs: 10_000,
    });
    await client.listTools();
    const deadline = Date.now() + 5_000;
    while (!h.requests.some((r) => r.path === '/mcp' && r.method === 'GET') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await client.close();
    const htm = (method: string) =>
      h.requests
        .filter((r) => r.path === '/mcp' && r.method === method && r.headers.dpop)
        .map((r) => decodeJwt(r.headers.dpop as string).htm);
    expect(htm('GET')[0]).toBe('GET');
    expect(htm('DELETE')).toEqual(['DELETE']);
    expect(htm('POST').every((method) => method === 'POST')).toBe(true);
  });
});

describe('DPoP nonces at the resource server (RFC 9449 §9)', () => {
  it('retries refused requests with the nonce the server asked for, concurrent ones included', async () => {
    const nonce = 'rs-nonce-1';
    let challenged = 0;
    let base = '';
    const h = await startHarness({
      dpop: true,
      gate: ({ token, headers }) => {
        const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
        if (!token) return { status: 401, wwwAuthenticate: `DPoP ${metadata}` };
        const proof = headers.dpop as string | undefined;
        if (proof && decodeJwt(proof).nonce !== nonce) {
          challenged++;
          return {
            status: 401,
            wwwAuthenticate: `DPoP error="use_dpop_nonce", ${metadata}`,
            headers: { 'dpop-nonce': nonce },
          };
        }
        return undefined;
      },
    });
    base = h.base;
    cleanups.push(() => h.close());
    const oauth = new OAuthClientProvider({
      serverUrl: h.mcpUrl,
      grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
      store: new MemoryTokenStore(),
    });
    const client = await McpClient.connect(h.mcpUrl, { oauth, timeoutMs: 10_000 });
    cleanups.push(() => client.close());
    await Promise.all(Array.from({ length: 4 }, () => client.callTool({ name: 'echo', arguments: {} })));
    expect(challenged).toBeGreaterThanOrEqual(1);
    expect(h.count('/authorize')).toBe(1);
  });
});
