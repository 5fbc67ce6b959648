/**
 * Opaque access tokens checked by RFC 7662 introspection at oidc-provider's endpoint (metadata discovered from
 * the issuer; the resource server authenticates with client_secret_basic).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntrospectionVerifier, InvalidTokenError } from '../../src/auth/server/index.js';
import { dpopProof, generateDpopKey } from '../support/oidc-provider.js';
import { type Protected, bearer, call, startProtected } from './support.js';

let p: Protected;

const introspecting = (secret?: string) => (as: Protected['as']) =>
  new IntrospectionVerifier({
    issuer: as.issuer,
    clientId: as.clients.introspector.clientId,
    clientAuth: { clientSecret: secret ?? as.clients.introspector.clientSecret },
  });

beforeAll(async () => {
  p = await startProtected({ resource: { format: 'opaque' }, verifier: introspecting() });
});

afterAll(async () => {
  await p?.[Symbol.asyncDispose]();
});

const whoami = { name: 'whoami', arguments: {} };

async function revoke(token: string): Promise<void> {
  const { clientId, clientSecret } = p.as.clients.machine;
  const response = await fetch(`${p.as.issuer}/token/revocation`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
  });
  expect(response.status).toBe(200);
}

describe('token introspection', () => {
  it('accepts an opaque token the authorization server calls active; ctx.auth carries its facts', async () => {
    const token = await p.token();
    expect(token.split('.')).toHaveLength(1);
    const response = await call(p.url, 'tools/call', whoami, bearer(token));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { structuredContent: Record<string, unknown> } };
    expect(body.result.structuredContent).toMatchObject({
      subject: null,
      clientId: 'mcp-machine',
      scopes: ['mcp:tools'],
      principal: `${p.as.issuer}\u0000mcp-machine`,
    });
  });

  it('caches a positive answer: a revoked token stays accepted by this verifier until its cache entry ends', async () => {
    const token = await p.token();
    expect((await call(p.url, 'tools/list', {}, bearer(token))).status).toBe(200);
    await revoke(token);
    expect((await call(p.url, 'tools/list', {}, bearer(token))).status).toBe(200);
    // A verifier without that cache entry asks again and hears "inactive".
    const fresh = introspecting()(p.as);
    const context = { resource: p.url, method: 'POST', path: '/mcp', header: () => undefined };
    await expect(fresh.verify(token, context)).rejects.toThrow(
      new InvalidTokenError('the access token is not active'),
    );
  });

  it('refuses an unknown token and a token for another resource', async () => {
    const unknown = await call(p.url, 'tools/list', {}, bearer('c29tZXRoaW5nLWVsc2U'));
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain(
      'error_description="the access token is not active"',
    );
    const other = 'http://127.0.0.1:1/elsewhere';
    p.as.addResource(other, { scopes: ['mcp:tools'], format: 'opaque' });
    const { access_token } = await p.as.clientCredentials({ resource: other, scope: 'mcp:tools' });
    const foreign = await call(p.url, 'tools/list', {}, bearer(access_token));
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('www-authenticate')).toContain('not issued for this resource');
  });

  it('checks a DPoP binding it learns from introspection (cnf.jkt)', async () => {
    const key = await generateDpopKey();
    const { access_token } = await p.as.clientCredentials({ resource: p.url, scope: 'mcp:tools', dpop: key });
    const proof = await dpopProof(key, { htm: 'POST', htu: p.url, accessToken: access_token });
    expect((await call(p.url, 'tools/list', {}, `DPoP ${access_token}`, { dpop: proof })).status).toBe(200);
    expect((await call(p.url, 'tools/list', {}, bearer(access_token))).status).toBe(401);
  });
});

describe('an introspection endpoint that refuses the resource server', () => {
  it('answers 503, not 401: the client keeps its token and retries later', async () => {
    await using q = await startProtected({
      resource: { format: 'opaque' },
      verifier: introspecting('wrong-secret'),
    });
    const response = await call(q.url, 'tools/list', {}, bearer(await q.token()));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the access token cannot be verified right now',
    });
  });
});
