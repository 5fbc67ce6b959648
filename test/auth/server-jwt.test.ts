/**
 * Our McpServer as an OAuth resource server over real HTTP, against a real authorization server (oidc-provider):
 * JWT access tokens verified with its JWKS (2026-07-28 basic/authorization, RFC 6750, RFC 8707, RFC 9068).
 */
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidTokenError, JwtVerifier } from '../../src/auth/server/index.js';
import type { Logger } from '../../src/util/logger.js';
import { type Protected, bearer, call, metadataUrlOf, startProtected } from './support.js';

const logged: string[] = [];
const logger: Logger = {
  debug: (message) => logged.push(message),
  warn: (message) => logged.push(message),
  error: (message) => logged.push(message),
};

let p: Protected;
let challenge: { missing: string; invalid: (description: string) => string };

beforeAll(async () => {
  p = await startProtected({ guard: { logger } });
  const metadata = metadataUrlOf(p.url);
  challenge = {
    missing: `Bearer resource_metadata="${metadata}"`,
    invalid: (description) =>
      `Bearer error="invalid_token", error_description="${description}", resource_metadata="${metadata}"`,
  };
});

afterAll(async () => {
  await p?.[Symbol.asyncDispose]();
});

async function result(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`no result: ${JSON.stringify(body)}`);
  return body.result;
}

/** A token that is well-formed but not good here gets 401 invalid_token naming why, never echoing it. */
async function expectInvalid(token: string, description: string): Promise<void> {
  const response = await call(p.url, 'tools/call', { name: 'whoami', arguments: {} }, bearer(token));
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(challenge.invalid(description));
  const text = await response.text();
  expect(text).not.toContain(token);
  expect(JSON.parse(text)).toEqual({ error: 'invalid_token', error_description: description });
}

describe('a protected server with JWT access tokens', () => {
  it('accepts a client_credentials token: tools/list and tools/call, ctx.auth reaches the handler', async () => {
    const token = await p.token();
    const list = await result(await call(p.url, 'tools/list', {}, bearer(token)));
    const tools = list.tools as Array<Record<string, unknown>>;
    expect(tools.map((tool) => tool.name).sort()).toEqual(['greet', 'purge', 'whoami']);
    // Required scopes are the server's business: they are not published on the tool.
    expect(tools.find((tool) => tool.name === 'purge')).not.toHaveProperty('requiredScopes');

    const called = await result(
      await call(p.url, 'tools/call', { name: 'whoami', arguments: {} }, bearer(token)),
    );
    const auth = called.structuredContent as Record<string, unknown>;
    expect(auth).toMatchObject({
      subject: p.as.clients.machine.clientId,
      clientId: p.as.clients.machine.clientId,
      scopes: ['mcp:tools'],
      hasToken: false,
      sawCredentials: false,
      sawAccept: true,
    });
    expect(auth.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(auth.principal).toBe(`${p.as.issuer}\u0000mcp-machine\u0000mcp-machine`);
  });

  it('answers a request without a token 401 with the RFC 9728 challenge', async () => {
    const response = await call(p.url, 'tools/list', {});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(challenge.missing);
    expect(await response.json()).toEqual({
      error: 'unauthorized',
      error_description: 'an access token is required',
    });
    // Another scheme is no bearer token either.
    const basic = await call(p.url, 'tools/list', {}, 'Basic dXNlcjpwYXNz');
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe(challenge.missing);
  });

  it('refuses a malformed Authorization header with 400 invalid_request', async () => {
    for (const header of ['Bearer', 'Bearer two words', 'Bearer a"b']) {
      const response = await call(p.url, 'tools/list', {}, header);
      expect(response.status).toBe(400);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
    }
  });

  it('refuses a forged, an unsigned and a foreign-key token', async () => {
    await expectInvalid('not-a-jwt', 'the access token is invalid');
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: p.as.issuer,
      aud: p.url,
      sub: 'mallory',
      scope: 'mcp:tools mcp:admin',
      exp: now + 600,
    };
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    // alg: none (RFC 7519 section 6): no signature at all.
    await expectInvalid(
      `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`,
      'the access token is signed with a refused algorithm',
    );
    // HS256 keyed with anything: refused before any key is tried.
    const hs = await p.as.sign(claims, { alg: 'HS256', key: new Uint8Array(32) as never });
    await expectInvalid(hs, 'the access token is signed with a refused algorithm');
    const stray = (await generateKeyPair('RS256')).privateKey;
    await expectInvalid(
      await p.as.sign(claims, { kid: 'unknown-kid', key: stray }),
      'the access token is signed with an unknown key',
    );
    // The server's kid, somebody else's key.
    await expectInvalid(await p.as.sign(claims, { key: stray }), 'the access token is invalid');
  });

  it('refuses an expired token, one from another issuer, and one not valid yet', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { aud: p.url, sub: 'alice', scope: 'mcp:tools' };
    await expectInvalid(
      await p.as.sign({ ...base, iss: p.as.issuer, exp: now - 60 }),
      'the access token expired',
    );
    await expectInvalid(
      await p.as.sign({ ...base, iss: 'http://127.0.0.1:1', exp: now + 600 }),
      'the access token is from another issuer',
    );
    await expectInvalid(
      await p.as.sign({ ...base, iss: p.as.issuer, exp: now + 600, nbf: now + 300 }),
      'the access token is not valid yet',
    );
    // Within the 10 s skew an expired token still passes (clocks differ a little).
    const skewed = await p.as.sign({ ...base, iss: p.as.issuer, exp: now - 2 });
    expect((await call(p.url, 'tools/list', {}, bearer(skewed))).status).toBe(200);
  });

  it('refuses a real token once its lifetime is over, even after verifying (and caching) it', async () => {
    const token = await p.token();
    const context = { resource: p.url, method: 'POST', path: '/mcp', header: () => undefined };
    let clock = Date.now();
    const verifier = new JwtVerifier({ jwks: p.as.jwksUri, issuer: p.as.issuer, now: () => clock });
    await expect(verifier.verify(token, context)).resolves.toMatchObject({ subject: 'mcp-machine' });
    await expect(verifier.verify(token, context)).resolves.toMatchObject({ subject: 'mcp-machine' });
    // The provider's TTL for this resource is 600 s; 11 minutes later the token is dead, cached or not.
    clock += 11 * 60_000;
    await expect(verifier.verify(token, context)).rejects.toThrow(
      new InvalidTokenError('the access token expired'),
    );
    // The cache is per audience: the same verifier asked for another resource verifies afresh, and refuses.
    clock = Date.now();
    const elsewhere = { ...context, resource: 'http://127.0.0.1:1/mcp' };
    await expect(verifier.verify(token, elsewhere)).rejects.toThrow(
      'the access token was not issued for this resource',
    );
  });

  it('refuses a real token issued for another resource (RFC 8707 audience)', async () => {
    const other = 'http://127.0.0.1:1/other-mcp';
    p.as.addResource(other, { scopes: ['mcp:tools'] });
    const { access_token } = await p.as.clientCredentials({ resource: other, scope: 'mcp:tools' });
    await expectInvalid(access_token, 'the access token was not issued for this resource');
  });

  it('answers 403 insufficient_scope naming the scope a tool needs, then runs it with that scope', async () => {
    const token = await p.token('mcp:tools');
    const response = await call(p.url, 'tools/call', { name: 'purge', arguments: {} }, bearer(token));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="the access token lacks a required scope", resource_metadata="${metadataUrlOf(p.url)}", scope="mcp:admin"`,
    );
    const admin = await p.token('mcp:tools mcp:admin');
    const ran = await result(
      await call(p.url, 'tools/call', { name: 'purge', arguments: {} }, bearer(admin)),
    );
    expect(ran.content).toEqual([{ type: 'text', text: 'purged' }]);
  });

  it('serves the protected-resource metadata at both well-known paths, CORS-friendly, without a token', async () => {
    const expected = {
      resource: p.url,
      authorization_servers: [p.as.issuer],
      scopes_supported: ['mcp:tools', 'mcp:admin'],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA'],
    };
    const origin = new URL(p.url).origin;
    for (const url of [metadataUrlOf(p.url), `${origin}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(url, { headers: { origin: 'https://inspector.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual(expected);
    }
    const preflight = await fetch(metadataUrlOf(p.url), { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect((await fetch(metadataUrlOf(p.url), { method: 'POST' })).status).toBe(405);
    // Other paths stay absent, with or without a token (2025-03-26 clients probe for AS metadata here).
    const probe = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(probe.status).toBe(404);
    expect(probe.headers.get('www-authenticate')).toBeNull();
  });

  it('never logs a token', async () => {
    const token = await p.token();
    const stray = await p.as.sign({ iss: p.as.issuer, aud: 'http://elsewhere', exp: 1 });
    for (const value of [token, stray, `${token}x`])
      await call(p.url, 'tools/call', { name: 'purge', arguments: {} }, bearer(value));
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) for (const value of [token, stray]) expect(line).not.toContain(value);
  });
});

describe('requestState bound to the principal', () => {
  it('refuses a requestState minted for one client when another presents it', async () => {
    await using q = await startProtected({
      clients: [
        {
          client_id: 'second-machine',
          client_secret: 'second-machine-secret-0123456789',
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
        },
      ],
    });
    const caps = { _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } };
    const alice = await q.token();
    const first = await result(
      await call(q.url, 'tools/call', { name: 'greet', arguments: {}, ...caps }, bearer(alice)),
    );
    expect(first.resultType).toBe('input_required');
    const retry = {
      name: 'greet',
      arguments: {},
      requestState: first.requestState,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      ...caps,
    };
    const { access_token: bob } = await q.as.clientCredentials({
      resource: q.url,
      scope: 'mcp:tools',
      client: { clientId: 'second-machine', clientSecret: 'second-machine-secret-0123456789' },
    });
    const stolen = await call(q.url, 'tools/call', retry, bearer(bob));
    expect(((await stolen.json()) as { error: unknown }).error).toEqual({
      code: -32602,
      message: 'Invalid requestState',
    });
    const own = await result(await call(q.url, 'tools/call', retry, bearer(alice)));
    expect(own.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
  });
});

describe('scopes every request needs', () => {
  it('names them in the 401 challenge and refuses a token without them with 403 at the door', async () => {
    await using q = await startProtected({ guard: { requiredScopes: ['mcp:tools'] } });
    const missing = await call(q.url, 'tools/list', {});
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrlOf(q.url)}", scope="mcp:tools"`,
    );
    const adminOnly = await q.token('mcp:admin');
    const refused = await call(q.url, 'tools/list', {}, bearer(adminOnly));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="mcp:tools"');
    // A tool's scope comes on top of the endpoint's: the challenge names both.
    const toolsOnly = await q.token('mcp:tools');
    const purge = await call(q.url, 'tools/call', { name: 'purge', arguments: {} }, bearer(toolsOnly));
    expect(purge.status).toBe(403);
    expect(purge.headers.get('www-authenticate')).toContain('scope="mcp:tools mcp:admin"');
  });
});
