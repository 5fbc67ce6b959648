/**
 * The test authorization server itself, as the OAuth client side will use it: dynamic registration, the
 * authorization code flow with PKCE through the headless browser, refresh with offline_access, and tokens our
 * protected server accepts (oauth4webapi plays the client here).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Protected, bearer, call, startProtected } from './support.js';

let p: Protected;
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  p = await startProtected();
  const issuer = new URL(p.as.issuer);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
  );
});

afterAll(async () => {
  await p?.[Symbol.asyncDispose]();
});

async function register(redirectUri: string): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      redirect_uris: [redirectUri],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    insecure,
  );
  return oauth.processDynamicClientRegistrationResponse(response);
}

async function authorizationUrl(client: oauth.Client, redirectUri: string, scope: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope,
    resource: p.url,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    prompt: 'consent',
  }).toString();
  return { url, verifier, state };
}

async function redeem(
  client: oauth.Client,
  callback: URL,
  redirectUri: string,
  verifier: string,
  state: string,
) {
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri,
    verifier,
    {
      additionalParameters: { resource: p.url },
      ...insecure,
    },
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

describe('the oidc-provider harness', () => {
  it('runs authorization code + PKCE headlessly; the token is for the resource and the logged-in account', async () => {
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const redirectUri = 'http://127.0.0.1:9/callback';
    const client = await register(redirectUri);
    const { url, verifier, state } = await authorizationUrl(client, redirectUri, 'mcp:tools offline_access');
    const callback = await p.as.authorize(url);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get('iss')).toBe(p.as.issuer);
    const tokens = await redeem(client, callback, redirectUri, verifier, state);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'alice', aud: p.url, scope: 'mcp:tools' });
    expect(tokens.refresh_token).toBeTruthy();

    const whoami = await call(
      p.url,
      'tools/call',
      { name: 'whoami', arguments: {} },
      bearer(tokens.access_token),
    );
    const body = (await whoami.json()) as { result: { structuredContent: Record<string, unknown> } };
    expect(body.result.structuredContent).toMatchObject({ subject: 'alice', clientId: client.client_id });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, {
        additionalParameters: { resource: p.url },
        ...insecure,
      }),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await call(p.url, 'tools/list', {}, bearer(refreshed.access_token))).status).toBe(200);
  });

  it('logs in another account on request, and delivers the redirect to a loopback listener', async () => {
    const received: string[] = [];
    const listener = createServer((req, res) => {
      received.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
      const client = await register(redirectUri);
      const { url, verifier, state } = await authorizationUrl(client, redirectUri, 'mcp:tools mcp:admin');
      const callback = await p.as.authorize(url, { account: 'bob', deliver: true });
      expect(received).toEqual([callback.pathname + callback.search]);
      const tokens = await redeem(client, callback, redirectUri, verifier, state);
      expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'bob', scope: 'mcp:tools mcp:admin' });
      // Without offline_access there is no refresh token.
      expect(tokens.refresh_token).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('refuses a token request for a resource it does not know (invalid_target)', async () => {
    await expect(p.as.clientCredentials({ resource: 'http://127.0.0.1:1/unknown' })).rejects.toThrow(
      /invalid_target/,
    );
  });
});
