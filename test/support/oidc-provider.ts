/**
 * A real OAuth 2.1 / OpenID authorization server for tests: `oidc-provider` (a certified OpenID Provider) on
 * 127.0.0.1, port 0, with everything MCP authorization exercises turned on and the login/consent UI replaced by
 * a headless auto-approve.
 *
 * What it offers:
 * - RFC 8707 resource indicators: each configured resource gets JWT (or opaque) access tokens whose `aud` is
 *   the resource URL, with the resource's scopes and TTL; a request for an unknown resource is `invalid_target`.
 * - Grants: authorization code with PKCE (S256 only, always required), refresh tokens (`offline_access`),
 *   client credentials.
 * - DPoP (RFC 9449, no server nonce), token introspection (RFC 7662), revocation, dynamic client registration
 *   (RFC 7591, open: no initial access token).
 * - Pre-registered clients: `clients.machine` (client_credentials, client_secret_basic), `clients.introspector`
 *   (a resource server's credentials for the introspection endpoint), plus any `clients` you pass.
 * - Headless interaction: `authorize(url)` plays the browser. It follows the authorization URL with plain HTTP
 *   (a cookie jar, redirects by hand); the interaction page logs `account` in and grants every scope asked for;
 *   it returns the URL the server finally redirects to (the client's redirect_uri with `code`, `state`, `iss`).
 *   Pass `{ deliver: true }` to also GET that URL (a client's loopback listener then receives it).
 * - `sign(claims, options)` signs a JWT with the server's own key (or a stray one), for edge cases a real grant
 *   cannot produce (an old `exp`, a foreign `aud`, an unknown `kid`).
 *
 *   await using as = await startAuthorizationServer({ resources: { [mcpUrl]: { scopes: ['tools:read'] } } });
 *   // or, for a server on port 0: as.addResource(listening.url, { scopes: ['tools:read'] }) once it listens
 *   const { access_token } = await as.clientCredentials({ resource: mcpUrl, scope: 'tools:read' });
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CryptoKey,
  type JWK,
  type JWTPayload,
  SignJWT,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
} from 'jose';
import Provider, { errors } from 'oidc-provider';

export interface ResourceServerConfig {
  /** Scopes tokens for this resource may carry. */
  scopes: readonly string[];
  /** 'jwt' (default, RFC 9068, verifiable with the JWKS) or 'opaque' (verifiable by introspection only). */
  format?: 'jwt' | 'opaque';
  /** Access token lifetime in seconds (default 600). */
  accessTokenTtlSec?: number;
}

export interface AuthorizationServerOptions {
  /** Resource indicator (the MCP server's canonical URL) -> what tokens for it look like; more with addResource. */
  resources?: Record<string, ResourceServerConfig>;
  /** Extra pre-registered clients (oidc-provider client metadata, snake_case). */
  clients?: readonly Record<string, unknown>[];
  /** The account the headless interaction logs in (default 'alice'). */
  account?: string;
  /** Runs on the provider before it serves: `provider.registerGrantType(...)` adds a grant (RFC 8693, say). */
  extend?: (provider: Provider) => void;
}

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly scope?: string;
  readonly refresh_token?: string;
}

/** A DPoP key pair (ES256) and its public JWK thumbprint (`cnf.jkt` of the tokens it binds). */
export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly jkt: string;
}

export interface TestAuthorizationServer extends AsyncDisposable {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly introspectionEndpoint: string;
  readonly registrationEndpoint: string;
  readonly clients: { readonly machine: ClientCredentials; readonly introspector: ClientCredentials };
  /** The signing key's `kid`. */
  readonly kid: string;
  /** Makes a resource known (a server listening on port 0 learns its URL after the authorization server starts). */
  addResource(resource: string, config: ResourceServerConfig): void;
  /** client_credentials at the token endpoint (default client: `clients.machine`); DPoP-bound with `dpop`. */
  clientCredentials(request: {
    resource: string;
    scope?: string;
    client?: ClientCredentials;
    dpop?: DpopKey;
  }): Promise<TokenResponse>;
  /** Plays the browser on an authorization URL; resolves with the redirect back to the client. */
  authorize(url: string | URL, options?: { account?: string; deliver?: boolean }): Promise<URL>;
  /** Signs a JWT access token with the server's key (or `key`), `typ` at+jwt, `kid` as given. */
  sign(
    claims: JWTPayload,
    options?: { kid?: string; key?: CryptoKey; alg?: string; typ?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

const CLIENT_SECRET_BYTES = 32;

function secret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(CLIENT_SECRET_BYTES))).toString('base64url');
}

export async function generateDpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk) };
}

/** A DPoP proof (RFC 9449 section 4.2) for one request; `ath` when an access token is given, `nonce` if asked. */
export async function dpopProof(
  key: DpopKey,
  request: { htm: string; htu: string; accessToken?: string; iat?: number; jti?: string; nonce?: string },
): Promise<string> {
  const claims: JWTPayload = { htm: request.htm, htu: request.htu, jti: request.jti ?? randomUUID() };
  if (request.nonce !== undefined) claims.nonce = request.nonce;
  if (request.accessToken !== undefined) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(request.accessToken));
    claims.ath = Buffer.from(digest).toString('base64url');
  }
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk })
    .setIssuedAt(request.iat ?? Math.floor(Date.now() / 1000))
    .sign(key.privateKey);
}

const resourceTtl = (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
  token.resourceServer?.accessTokenTTL ?? 600;

function providerConfiguration(
  resources: Map<string, ResourceServerConfig>,
  signingJwk: JWK,
  clients: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    clients,
    jwks: { keys: [signingJwk] },
    cookies: { keys: [secret()] },
    // Resource scopes come from getResourceServerInfo; these are the OpenID ones.
    scopes: ['openid', 'offline_access'],
    pkce: { required: () => true },
    ttl: {
      // A resource's own TTL wins for the tokens bound to it.
      AccessToken: resourceTtl,
      ClientCredentials: resourceTtl,
      AuthorizationCode: 60,
      RefreshToken: 86_400,
      Grant: 86_400,
      Interaction: 600,
      Session: 86_400,
      IdToken: 600,
    },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: true },
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // One resource per request is the MCP shape (RFC 8707 `resource` on both requests); a refresh or an
        // authorization-code redemption without one gets the resource the grant was for.
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          const config = resources.get(indicator);
          if (!config) throw new errors.InvalidTarget();
          return {
            scope: config.scopes.join(' '),
            audience: indicator,
            accessTokenTTL: config.accessTokenTtlSec ?? 600,
            accessTokenFormat: config.format ?? 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  };
}

/** The headless login and consent: one GET per prompt, answered with the provider's own redirect. */
async function interact(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  account: string,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const requested = new URL(req.url ?? '/', 'http://x').searchParams.get('account') ?? account;
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: requested } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const accountId = details.session?.accountId ?? requested;
  const grant =
    (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
    new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [indicator, wanted] of Object.entries(missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, wanted.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<TestAuthorizationServer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `test-${randomUUID().slice(0, 8)}`;
  const signingJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const machine = { clientId: 'mcp-machine', clientSecret: secret() };
  const introspector = { clientId: 'mcp-resource-server', clientSecret: secret() };
  const clients = [
    {
      client_id: machine.clientId,
      client_secret: machine.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: introspector.clientId,
      client_secret: introspector.clientSecret,
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    },
    ...(options.clients ?? []),
  ];
  const account = options.account ?? 'alice';
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resources = new Map(Object.entries(options.resources ?? {}));
  const provider = new Provider(issuer, providerConfiguration(resources, signingJwk, clients));
  options.extend?.(provider);
  const callback = provider.callback();
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(provider, req, res, account).catch((error: unknown) => {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`interaction failed: ${String(error)}`);
      });
      return;
    }
    callback(req, res);
  });

  const endpoint = (path: string) => `${issuer}${path}`;
  const server: TestAuthorizationServer = {
    issuer,
    jwksUri: endpoint('/jwks'),
    authorizationEndpoint: endpoint('/auth'),
    tokenEndpoint: endpoint('/token'),
    introspectionEndpoint: endpoint('/token/introspection'),
    registrationEndpoint: endpoint('/reg'),
    clients: { machine, introspector },
    kid,
    addResource: (resource, config) => resources.set(resource, config),
    clientCredentials: (request) => clientCredentials(server.tokenEndpoint, machine, request),
    authorize: (url, authorizeOptions) => playBrowser(issuer, url, authorizeOptions),
    sign: (claims, signOptions) =>
      new SignJWT(claims)
        .setProtectedHeader({
          alg: signOptions?.alg ?? 'RS256',
          typ: signOptions?.typ ?? 'at+jwt',
          kid: signOptions?.kid ?? kid,
        })
        .sign(signOptions?.key ?? privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
    [Symbol.asyncDispose]: () => server.close(),
  };
  return server;
}

async function clientCredentials(
  tokenEndpoint: string,
  fallback: ClientCredentials,
  request: { resource: string; scope?: string; client?: ClientCredentials; dpop?: DpopKey },
): Promise<TokenResponse> {
  const client = request.client ?? fallback;
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: request.resource });
  if (request.scope !== undefined) body.set('scope', request.scope);
  const headers: Record<string, string> = {
    authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`,
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (request.dpop) headers.dpop = await dpopProof(request.dpop, { htm: 'POST', htu: tokenEndpoint });
  const response = await fetch(tokenEndpoint, { method: 'POST', headers, body });
  const json = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!response.ok)
    throw new Error(`token request failed: ${response.status} ${json.error} ${json.error_description ?? ''}`);
  return json;
}

/** The browser, headless: a cookie jar and manual redirects until the server sends us off its origin. */
async function playBrowser(
  issuer: string,
  start: string | URL,
  options: { account?: string; deliver?: boolean } = {},
): Promise<URL> {
  const jar = new Map<string, string>();
  const origin = new URL(issuer).origin;
  let url = new URL(start);
  for (let hop = 0; hop < 20; hop++) {
    if (url.origin !== origin) {
      if (options.deliver) await fetch(url, { redirect: 'manual' });
      return url;
    }
    if (options.account !== undefined && url.pathname.startsWith('/interaction/'))
      url.searchParams.set('account', options.account);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      const [name, value] = [pair.slice(0, equals), pair.slice(equals + 1)];
      // An emptied cookie is the server clearing it.
      if (value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      const text = await response.text();
      throw new Error(
        `authorization stopped at ${url.pathname} with ${response.status}: ${text.slice(0, 300)}`,
      );
    }
    await response.body?.cancel();
    url = new URL(location, url);
  }
  throw new Error('authorization did not finish within 20 redirects');
}
