/**
 * The resource-server pieces on their own and the web-standard (fetch) edge: RFC 9728 paths, the canonical
 * resource, challenge quoting, the bounded caches, and the guard in front of `createFetchHandler`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpiringCache } from '../../src/auth/server/cache.js';
import {
  DpopNonces,
  JwtVerifier,
  VerifierUnavailableError,
  bearerAuth,
  canonicalResource,
  formatChallenge,
  metadataPaths,
} from '../../src/auth/server/index.js';
import { createFetchHandler } from '../../src/server/http.js';
import { principalOf } from '../../src/server/request-state.js';
import { type TestAuthorizationServer, startAuthorizationServer } from '../support/oidc-provider.js';
import { modern } from '../server/http/helpers.js';
import { protectedServer } from './support.js';

describe('RFC 9728 and RFC 8707 helpers', () => {
  it('inserts the well-known suffix before the path; a root resource uses the bare path', () => {
    expect(metadataPaths(new URL('https://mcp.example.com/mcp'))).toEqual({
      insertion: '/.well-known/oauth-protected-resource/mcp',
      root: '/.well-known/oauth-protected-resource',
    });
    expect(metadataPaths(new URL('https://mcp.example.com/tenant/a/')).insertion).toBe(
      '/.well-known/oauth-protected-resource/tenant/a',
    );
    expect(metadataPaths(new URL('https://mcp.example.com')).insertion).toBe(
      '/.well-known/oauth-protected-resource',
    );
  });

  it('refuses a resource with a fragment, a query or another scheme', () => {
    expect(() => canonicalResource('https://mcp.example.com/mcp#x')).toThrow(/fragment/);
    expect(() => canonicalResource('https://mcp.example.com/mcp?tenant=a')).toThrow(/query/);
    expect(() => canonicalResource('ftp://mcp.example.com/mcp')).toThrow(/http/);
    expect(canonicalResource('HTTPS://MCP.example.com/mcp').href).toBe('https://mcp.example.com/mcp');
  });

  it('quotes challenge parameters safely (no header injection through a description)', () => {
    const header = formatChallenge({
      scheme: 'Bearer',
      error: 'invalid_token',
      description: 'say "hi"\r\nSet-Cookie: x=1 \\',
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      scopes: ['a', 'b'],
    });
    expect(header).toBe(
      'Bearer error="invalid_token", error_description="say \\"hi\\"Set-Cookie: x=1 \\\\", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="a b"',
    );
  });
});

describe('ExpiringCache', () => {
  it('forgets entries at their expiry and the oldest past its bound', () => {
    const cache = new ExpiringCache<number>(2);
    cache.set('a', 1, 1000);
    cache.set('b', 2, 2000);
    expect(cache.get('a', 999)).toBe(1);
    expect(cache.get('a', 1000)).toBeUndefined();
    cache.set('c', 3, 3000);
    cache.set('d', 4, 3000);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('d', 0)).toBe(4);
  });
});

describe('JwtVerifier against a hostile stream of unknown kids', () => {
  it('refuses them all while fetching the JWKS once per cooldown, not once per token', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'known', alg: 'ES256' }] });
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
      const verifier = new JwtVerifier({ jwks: url, issuer: 'https://as.example' });
      const stray = (await generateKeyPair('ES256')).privateKey;
      const context = {
        resource: 'https://mcp.example/mcp',
        method: 'POST',
        path: '/mcp',
        header: () => undefined,
      };
      for (let i = 0; i < 8; i++) {
        const token = await new SignJWT({ iss: 'https://as.example', aud: context.resource, exp: 9e9 })
          .setProtectedHeader({ alg: 'ES256', kid: `attacker-${i}` })
          .sign(stray);
        await expect(verifier.verify(token, context)).rejects.toThrow(
          'the access token is signed with an unknown key',
        );
      }
      expect(fetches).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('JwtVerifier when the keys cannot be had', () => {
  it('says "unavailable" (503), not "invalid token", for a refused connection or a failing JWKS', async () => {
    const server = createServer((_req, res) => res.writeHead(500).end('down'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const failing = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
      const { privateKey } = await generateKeyPair('ES256');
      const context = {
        resource: 'https://mcp.example/mcp',
        method: 'POST',
        path: '/mcp',
        header: () => undefined,
      };
      const token = await new SignJWT({ iss: 'https://as.example', aud: context.resource, exp: 9e9 })
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .sign(privateKey);
      for (const jwks of [failing, 'http://127.0.0.1:1/jwks']) {
        const verifier = new JwtVerifier({ jwks, issuer: 'https://as.example' });
        await expect(verifier.verify(token, context)).rejects.toBeInstanceOf(VerifierUnavailableError);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('DpopNonces', () => {
  it('accepts the current and the previous window, nothing older and nothing from another process', () => {
    const nonces = new DpopNonces(60);
    const t = 1_800_000_000_000;
    const issued = nonces.current(t);
    expect(nonces.accepts(issued, t)).toBe(true);
    expect(nonces.accepts(issued, t + 60_000)).toBe(true);
    expect(nonces.accepts(issued, t + 120_000)).toBe(false);
    expect(new DpopNonces(60).accepts(issued, t)).toBe(false);
    expect(nonces.accepts(undefined, t)).toBe(false);
  });
});

describe('principalOf', () => {
  it('qualifies the subject by its issuer: the same sub from two servers is two principals', () => {
    const a = principalOf({ issuer: 'https://a.example', subject: 'alice', clientId: 'c' });
    const b = principalOf({ issuer: 'https://b.example', subject: 'alice', clientId: 'c' });
    expect(a).not.toBe(b);
    expect(principalOf({ subject: 'alice' })).toBe('alice');
    expect(principalOf('alice')).toBeUndefined();
  });
});

describe('the guard in front of the fetch handler', () => {
  const resource = 'http://127.0.0.1:8/mcp';
  let as: TestAuthorizationServer;

  beforeAll(async () => {
    as = await startAuthorizationServer({
      resources: { [resource]: { scopes: ['mcp:tools', 'mcp:admin'] } },
    });
  });

  afterAll(async () => {
    await as?.close();
  });

  it('serves metadata, challenges, and hands the verified caller to the handler', async () => {
    const server = protectedServer();
    const handler = createFetchHandler(server, {
      path: '/mcp',
      auth: bearerAuth({
        resource,
        authorizationServers: [as.issuer],
        verifier: new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer }),
      }),
    });
    try {
      const metadata = await handler(
        new Request('http://127.0.0.1:8/.well-known/oauth-protected-resource/mcp'),
      );
      expect(((await metadata.json()) as { resource: string }).resource).toBe(resource);
      const request = (authorization?: string, name = 'whoami') => {
        const { body, headers } = modern('tools/call', { name, arguments: {} });
        const auth: Record<string, string> = authorization === undefined ? {} : { authorization };
        return new Request(resource, {
          method: 'POST',
          headers: { ...headers, ...auth },
          body: JSON.stringify(body),
        });
      };
      const anonymous = await handler(request());
      expect(anonymous.status).toBe(401);
      // What a middleware in front claims does not count when the guard says otherwise.
      const claimed = await handler(request(), {
        authInfo: { subject: 'root', scopes: ['mcp:admin'], claims: {} },
      });
      expect(claimed.status).toBe(401);
      const { access_token } = await as.clientCredentials({ resource, scope: 'mcp:tools' });
      const ok = await handler(request(`Bearer ${access_token}`));
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { result: { structuredContent: Record<string, unknown> } };
      expect(body.result.structuredContent).toMatchObject({
        subject: 'mcp-machine',
        scopes: ['mcp:tools'],
        sawCredentials: false,
        sawAccept: true,
      });
      expect((await handler(request(`Bearer ${access_token}`, 'purge'))).status).toBe(403);
    } finally {
      await handler.close();
      await server.close();
    }
  });

  it('hands the raw token to handlers only when told to (exposeToken)', async () => {
    const server = protectedServer();
    const verifier = new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer });
    const handler = createFetchHandler(server, {
      auth: bearerAuth({ resource, authorizationServers: [as.issuer], verifier, exposeToken: true }),
    });
    try {
      const { access_token } = await as.clientCredentials({ resource, scope: 'mcp:tools' });
      const { body, headers } = modern('tools/call', { name: 'whoami', arguments: {} });
      const response = await handler(
        new Request(resource, {
          method: 'POST',
          headers: { ...headers, authorization: `Bearer ${access_token}` },
          body: JSON.stringify(body),
        }),
      );
      const result = (await response.json()) as { result: { structuredContent: Record<string, unknown> } };
      expect(result.result.structuredContent.hasToken).toBe(true);
    } finally {
      await handler.close();
      await server.close();
    }
  });
});
