/**
 * The OAuth client for one MCP server: it holds the current token, answers the transport's per-request header
 * hook (Bearer, or DPoP with a fresh proof), and on a challenge runs discovery, registration and the grant,
 * one at a time however many requests were refused at once.
 */
import type * as oauth from 'oauth4webapi';
import type { HttpErrorHeaders } from '../../transports/http/client/errors.js';
import type { HttpRequestDescription } from '../../transports/http/client/options.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { canonicalResource } from '../shared/well-known.js';
import { authorizeWithCode } from './authorization-code.js';
import { readChallenge } from './challenge.js';
import { type Discovery, discover } from './discovery.js';
import { DpopKey, supportsDpop } from './dpop.js';
import { AuthorizationError } from './errors.js';
import { type TokenEndpoint, clientCredentialsGrant, jwtBearerGrant, refreshGrant } from './grants.js';
import { enterpriseGrant, type EnterpriseIdentityProvider } from './enterprise.js';
import { type AddressRange, NetworkPolicy, guardedFetch } from './network.js';
import { type ClientIdentity, resolveClient } from './registration.js';
import { selectScopes } from './scopes.js';
import { FileTokenStore, type StoredTokens, type TokenKey, type TokenStore } from './store.js';
import type { AuthorizationUserAgent } from './user-agent.js';

/** How this client obtains tokens. */
export type OAuthGrant =
  /** A user authorizes in a browser (the default MCP flow). */
  | { readonly type: 'authorization_code'; readonly userAgent: AuthorizationUserAgent }
  /** A machine client with its own credentials (SEP-1046): a secret or a private key. */
  | { readonly type: 'client_credentials' }
  /** Workload identity (SEP-1933): a JWT from the platform, presented as an RFC 7523 grant. */
  | { readonly type: 'jwt_bearer'; readonly assertion: () => string | Promise<string> }
  /** Enterprise-managed authorization (SEP-990): the user's IdP token exchanged for an ID-JAG. */
  | { readonly type: 'enterprise'; readonly idp: EnterpriseIdentityProvider };

export interface OAuthClientOptions extends ClientIdentity {
  /** The MCP endpoint the tokens are for. */
  serverUrl: string | URL;
  grant: OAuthGrant;
  /** Scopes to request besides the ones the server asks for. */
  scopes?: readonly string[];
  /** Default: the 0600 file under the user's config directory. */
  store?: TokenStore;
  /** Use DPoP when the authorization server supports it (default true). */
  dpop?: boolean;
  /** Private ranges the user allows for metadata and token requests (see NetworkPolicy). */
  allowRanges?: readonly AddressRange[];
  /** Host name resolver for the network policy (tests). */
  resolve?: (hostname: string) => Promise<string[]>;
  logger?: Logger;
}

export interface OAuthStatus {
  readonly issuer: string;
  readonly resource: string;
  readonly tokenType: string;
  readonly scope: readonly string[] | undefined;
  readonly expiresAt: number | undefined;
  readonly refreshable: boolean;
}

interface CurrentTokens {
  readonly key: TokenKey;
  readonly tokens: StoredTokens;
}

/** Whether a stored entry can serve this server: same origin, and a resource path covering the server's. */
function covers(resource: string, serverResource: string): boolean {
  return serverResource === resource || serverResource.startsWith(`${resource}/`);
}

export class OAuthClientProvider {
  readonly serverUrl: URL;
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #fetch: typeof fetch;
  readonly #logger: Logger;
  #current: CurrentTokens | undefined;
  #loaded: Promise<void> | undefined;
  #ready = false;
  #generation = 0;
  #bearer: Record<string, string> | undefined;
  #pending: Promise<void> | undefined;
  #dpop: DpopKey | undefined;

  constructor(options: OAuthClientOptions) {
    this.serverUrl = new URL(options.serverUrl);
    this.#options = options;
    this.#store = options.store ?? new FileTokenStore();
    this.#logger = options.logger ?? silentLogger;
    const policy = new NetworkPolicy(this.serverUrl, {
      ...(options.allowRanges ? { allowRanges: options.allowRanges } : {}),
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    this.#fetch = guardedFetch(policy);
  }

  /** Changes whenever the token does: a request refused with an older token just retries. */
  get generation(): number {
    return this.#generation;
  }

  /** The transport's per-request header hook. Tokens go to the MCP server's origin and nowhere else. */
  async headersFor(request: HttpRequestDescription): Promise<Record<string, string>> {
    if (!this.#ready) await this.#load();
    const current = this.#current;
    if (!current || request.url.origin !== this.serverUrl.origin) return {};
    const token = current.tokens.access_token;
    if (current.tokens.token_type === 'dpop' && this.#dpop) {
      return {
        authorization: `DPoP ${token}`,
        dpop: await this.#dpop.proofFor(request.method, request.url, token),
      };
    }
    this.#bearer ??= { authorization: `Bearer ${token}` };
    return this.#bearer;
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      const resource = canonicalResource(this.serverUrl);
      const entries = (await this.#store.entries()).filter(
        ([key, tokens]) => covers(key.resource, resource) && tokens.token_type !== 'dpop',
      );
      const latest = entries.sort((a, b) => b[1].saved_at - a[1].saved_at)[0];
      if (latest && !this.#current) this.#setCurrent({ key: latest[0], tokens: latest[1] });
      this.#ready = true;
    })();
    return this.#loaded;
  }

  #setCurrent(current: CurrentTokens | undefined): void {
    this.#current = current;
    this.#bearer = undefined;
    this.#generation++;
  }

  /**
   * Acts on a 401 or 403 from the MCP server. 'nonce': retry with the DPoP nonce the server asked for;
   * 'token': retry with the token now current. Throws when there is nothing left to try.
   */
  async handleChallenge(
    status: number,
    headers: HttpErrorHeaders,
    sentGeneration: number,
    mayAuthorize: boolean,
  ): Promise<'nonce' | 'token'> {
    const challenge = await readChallenge(headers['www-authenticate']);
    const nonce = headers['dpop-nonce'];
    if (challenge.error === 'use_dpop_nonce' && nonce && this.#dpop) {
      // Requests in flight with the previous nonce all land here; the middleware bounds the retries.
      this.#dpop.setResourceNonce(this.serverUrl.origin, nonce);
      return 'nonce';
    }
    if (status === 403 && challenge.error !== 'insufficient_scope')
      throw new AuthorizationError(
        'unauthorized',
        `the server refused the request (403 ${challenge.error ?? ''})`.trim(),
      );
    if (this.#generation !== sentGeneration) return 'token';
    if (!mayAuthorize)
      throw new AuthorizationError(
        'unauthorized',
        `the server still refuses our token (${status}) after re-authorizing`,
      );
    this.#pending ??= this.#obtain(status, challenge).finally(() => {
      this.#pending = undefined;
    });
    await this.#pending;
    return 'token';
  }

  /** Authorizes now, without waiting for a challenge, and without refreshing (`agentforge auth login`). */
  async authorize(): Promise<void> {
    await this.#load();
    this.#pending ??= this.#obtain(401, { scope: undefined, resourceMetadata: undefined }, false).finally(
      () => {
        this.#pending = undefined;
      },
    );
    await this.#pending;
  }

  /** Forgets this server's tokens, in memory and in the store. */
  async logout(): Promise<void> {
    await this.#load();
    const resource = canonicalResource(this.serverUrl);
    for (const [key] of await this.#store.entries())
      if (covers(key.resource, resource)) await this.#store.delete(key);
    this.#setCurrent(undefined);
  }

  async status(): Promise<OAuthStatus | undefined> {
    await this.#load();
    const current = this.#current;
    if (!current) return undefined;
    return {
      issuer: current.key.issuer,
      resource: current.key.resource,
      tokenType: current.tokens.token_type,
      scope: current.tokens.scope,
      expiresAt: current.tokens.expires_at,
      refreshable: current.tokens.refresh_token !== undefined,
    };
  }

  async #obtain(
    status: number,
    challenge: { scope: string[] | undefined; resourceMetadata: string | undefined },
    mayRefresh = true,
  ): Promise<void> {
    // Discovery again on every challenge: the server may have moved to another authorization server (SEP-2352).
    const discovery = await discover(this.#fetch, this.serverUrl, challenge.resourceMetadata);
    const as = discovery.authorizationServer;
    const key: TokenKey = { issuer: as.issuer, resource: discovery.resource };
    const current = this.#current;
    const same = current && current.key.issuer === key.issuer && current.key.resource === key.resource;
    if (mayRefresh && status === 401 && same && current.tokens.refresh_token) {
      try {
        await this.#refresh(discovery, key, current.tokens);
        return;
      } catch (error) {
        this.#logger.debug('refresh failed; authorizing again', error);
      }
    }
    const interactive = this.#options.grant.type === 'authorization_code';
    const scope = selectScopes({
      challenged: challenge.scope,
      discovery,
      prior: same ? current.tokens.scope : undefined,
      configured: this.#options.scopes,
      wantsRefreshToken: interactive,
    });
    const endpoint = await this.#endpoint(discovery);
    const response = await this.#grant(endpoint, discovery, scope);
    await this.#save(key, endpoint.client.client_id, response, scope, undefined);
  }

  async #endpoint(discovery: Discovery): Promise<TokenEndpoint> {
    const as = discovery.authorizationServer;
    if (this.#options.dpop !== false && supportsDpop(as)) this.#dpop ??= await DpopKey.generate();
    const grant = this.#options.grant;
    const resolved = await resolveClient({
      as,
      identity: this.#options,
      store: this.#store,
      fetch: this.#fetch,
      redirectUri: grant.type === 'authorization_code' ? grant.userAgent.redirectUri : undefined,
      grantTypes:
        grant.type === 'authorization_code' ? ['authorization_code', 'refresh_token'] : [grantTypeOf(grant)],
    });
    return {
      as,
      client: resolved.client,
      clientAuth: resolved.clientAuth,
      fetch: this.#fetch,
      dpop: supportsDpop(as) ? this.#dpop?.handle : undefined,
    };
  }

  #grant(
    endpoint: TokenEndpoint,
    discovery: Discovery,
    scope: string[] | undefined,
  ): Promise<oauth.TokenEndpointResponse> {
    const grant = this.#options.grant;
    const resource = discovery.resource;
    switch (grant.type) {
      case 'authorization_code':
        return authorizeWithCode({ endpoint, userAgent: grant.userAgent, resource, scope });
      case 'client_credentials':
        return clientCredentialsGrant(endpoint, resource, scope);
      case 'jwt_bearer':
        return Promise.resolve(grant.assertion()).then((assertion) =>
          jwtBearerGrant(endpoint, assertion, resource, scope),
        );
      case 'enterprise':
        return enterpriseGrant(endpoint, grant.idp, this.#fetch, resource, scope);
    }
  }

  async #refresh(discovery: Discovery, key: TokenKey, tokens: StoredTokens): Promise<void> {
    const endpoint = await this.#endpoint(discovery);
    if (endpoint.client.client_id !== tokens.client_id)
      throw new AuthorizationError('token_request_failed', 'the refresh token belongs to another client');
    const response = await refreshGrant(endpoint, tokens.refresh_token as string, discovery.resource);
    await this.#save(
      key,
      tokens.client_id,
      response,
      tokens.scope ? [...tokens.scope] : undefined,
      tokens.refresh_token,
    );
  }

  async #save(
    key: TokenKey,
    clientId: string,
    response: oauth.TokenEndpointResponse,
    requested: string[] | undefined,
    previousRefresh: string | undefined,
  ): Promise<void> {
    const tokenType = response.token_type.toLowerCase();
    if (tokenType === 'dpop' && !this.#dpop)
      throw new AuthorizationError('token_request_failed', 'the server issued a DPoP token we cannot use');
    const refresh = response.refresh_token ?? previousRefresh;
    const granted = response.scope?.split(' ').filter(Boolean);
    const tokens: StoredTokens = {
      access_token: response.access_token,
      token_type: tokenType,
      ...(refresh ? { refresh_token: refresh } : {}),
      ...(typeof response.expires_in === 'number'
        ? { expires_at: Date.now() + response.expires_in * 1000 }
        : {}),
      ...((granted ?? requested) ? { scope: granted ?? requested } : {}),
      client_id: clientId,
      saved_at: Date.now(),
    };
    this.#setCurrent({ key, tokens });
    await this.#store.set(key, tokens);
  }
}

function grantTypeOf(grant: OAuthGrant): string {
  if (grant.type === 'client_credentials') return 'client_credentials';
  return 'urn:ietf:params:oauth:grant-type:jwt-bearer';
}
