/**
 * End to end with a real authorization server (oidc-provider on 127.0.0.1): our McpClient with its OAuth
 * middleware against our McpServer behind bearerAuth, over real HTTP. The browser step is the harness playing
 * the browser (login and consent approved), through the client's pluggable user agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthClientProvider } from '../../src/auth/client/provider.js';
import { JwtVerifier } from '../../src/auth/server/index.js';
import { MemoryTokenStore } from '../../src/auth/client/store.js';
import type { AuthorizationUserAgent } from '../../src/auth/client/user-agent.js';
import { McpClient } from '../../src/client/index.js';
import { type Protected, bearer, call, startProtected } from './support.js';

let protectedServer: Protected;
beforeAll(async () => {
  // The endpoint asks for mcp:tools (its 401 names that scope); purge asks for mcp:admin on top.
  protectedServer = await startProtected({
    resource: { accessTokenTtlSec: 2 },
    guard: { requiredScopes: ['mcp:tools'] },
    // No clock skew: a 2-second token is refused once it is 2 seconds old.
    verifier: (as) => new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer, clockToleranceSec: 0 }),
  });
}, 60_000);
afterAll(async () => {
  await protectedServer?.[Symbol.asyncDispose]();
});

/** The browser step: the harness logs `account` in and consents; counts how often a person was asked. */
function browser(account = 'alice') {
  const agent = {
    opened: 0,
    redirectUri: 'http://127.0.0.1:8976/callback',
    async authorize(url: URL): Promise<URL> {
      agent.opened++;
      return protectedServer.as.authorize(url, { account });
    },
  };
  return agent satisfies AuthorizationUserAgent;
}

async function connect(agent: ReturnType<typeof browser>, dpop = false) {
  const oauth = new OAuthClientProvider({
    serverUrl: protectedServer.url,
    grant: { type: 'authorization_code', userAgent: agent },
    store: new MemoryTokenStore(),
    dpop,
  });
  const client = await McpClient.connect(protectedServer.url, { oauth, cache: false });
  return { client, oauth };
}

interface Whoami {
  subject: string | null;
  scopes: string[];
  principal: string | null;
}

describe('our client, our protected server, a real authorization server', () => {
  it('authorization code with PKCE, then a step-up for a tool that needs more scope', async () => {
    const agent = browser();
    const { client, oauth } = await connect(agent);
    try {
      const who = (await client.callTool({ name: 'whoami' })).structuredContent as unknown as Whoami;
      expect(who.subject).toBe('alice');
      expect(who.scopes).toContain('mcp:tools');
      expect(who.scopes).not.toContain('mcp:admin');
      expect(agent.opened).toBe(1);
      // purge needs mcp:admin: 403 insufficient_scope, the client asks again with the earlier scopes kept.
      const purged = await client.callTool({ name: 'purge' });
      expect(purged.content).toEqual([{ type: 'text', text: 'purged' }]);
      expect(agent.opened).toBe(2);
      const status = await oauth.status();
      expect(status?.scope).toEqual(expect.arrayContaining(['mcp:tools', 'mcp:admin']));
    } finally {
      await client.close();
    }
  });

  it('an expired access token is refreshed without asking the person again', async () => {
    const agent = browser('bob');
    const { client, oauth } = await connect(agent);
    try {
      await client.callTool({ name: 'whoami' });
      const before = await oauth.status();
      expect(before?.refreshable).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 3_100)); // the resource's tokens live 2 s
      const who = (await client.callTool({ name: 'whoami' })).structuredContent as unknown as Whoami;
      expect(who.subject).toBe('bob');
      expect(agent.opened).toBe(1);
      expect((await oauth.status())?.expiresAt).toBeGreaterThan(before?.expiresAt ?? 0);
    } finally {
      await client.close();
    }
  });

  it('DPoP-bound tokens: the server checks a fresh proof on every request', async () => {
    const agent = browser('carol');
    const { client, oauth } = await connect(agent, true);
    try {
      const who = (await client.callTool({ name: 'whoami' })).structuredContent as unknown as Whoami;
      expect(who.subject).toBe('carol');
      expect((await oauth.status())?.tokenType.toLowerCase()).toBe('dpop');
      await client.callTool({ name: 'whoami' });
    } finally {
      await client.close();
    }
  });

  it('refuses a token for another audience and an expired one', async () => {
    const { as, url } = protectedServer;
    const other = 'https://other.example/mcp';
    as.addResource(other, { scopes: ['mcp:tools'] });
    const foreign = (await as.clientCredentials({ resource: other, scope: 'mcp:tools' })).access_token;
    const now = Math.floor(Date.now() / 1000);
    const expired = await as.sign({
      iss: as.issuer,
      aud: url,
      sub: 'alice',
      scope: 'mcp:tools',
      iat: now - 120,
      exp: now - 60,
    });
    for (const token of [foreign, expired]) {
      const response = await call(url, 'tools/list', {}, bearer(token));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
    const valid = await protectedServer.token();
    expect((await call(url, 'tools/list', {}, bearer(valid))).status).toBe(200);
  });
});
