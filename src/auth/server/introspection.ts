import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { ExpiringCache } from './cache.js';
import { DEFAULT_MAX_TOKEN_LENGTH } from './jwt.js';
import {
  type AuthInfo,
  InvalidTokenError,
  type TokenClaims,
  type TokenContext,
  type TokenVerifier,
  VerifierUnavailableError,
  audienceIncludes,
  authInfoOf,
} from './types.js';

export interface IntrospectionVerifierOptions {
  /** The authorization server's issuer identifier; its metadata is discovered when no endpoint is given. */
  issuer: string;
  /** The introspection endpoint (RFC 7662 section 2); default: `introspection_endpoint` from the metadata. */
  introspectionEndpoint?: string;
  /** This resource server's own client registration at the authorization server. */
  clientId: string;
  /** How it authenticates (RFC 7662 section 2.1 requires some): a secret (basic by default), or any oauth4webapi ClientAuth. */
  clientAuth:
    | { clientSecret: string; method?: 'client_secret_basic' | 'client_secret_post' }
    | oauth.ClientAuth;
  /** Accepted `aud` values; default the MCP server's canonical resource URL (RFC 8707). */
  audience?: string | readonly string[];
  /** Positive answers are cached until the token's `exp`, at most this long (default 300 s), ... */
  cacheTtlSec?: number;
  /** ... for at most this many tokens (default 1000; oldest dropped). */
  cacheMaxEntries?: number;
  /** One introspection call may take this long (default 5 s); then 503, the client keeps its token. */
  timeoutMs?: number;
  /** Plain http to the authorization server (default: only when it is on a loopback address). */
  allowInsecureRequests?: boolean;
  /** The clock, in ms since the epoch. */
  now?: () => number;
}

const CLOCK_SKEW_SEC = 10;

function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || url.hostname.startsWith('127.');
}

/**
 * RFC 7662 token introspection, for opaque tokens (or to honour revocation): the authorization server says
 * whether the token is active; we still check issuer, audience and expiry ourselves. Positive answers are
 * cached (keyed by a hash of the token, never the token) so a busy client costs one call per token lifetime.
 */
export class IntrospectionVerifier implements TokenVerifier {
  readonly #options: IntrospectionVerifierOptions;
  readonly #client: oauth.Client;
  readonly #clientAuth: oauth.ClientAuth;
  readonly #cache: ExpiringCache<AuthInfo>;
  readonly #inFlight = new Map<string, Promise<AuthInfo>>();
  readonly #insecure: boolean;
  #server: Promise<oauth.AuthorizationServer> | undefined;

  constructor(options: IntrospectionVerifierOptions) {
    this.#options = options;
    this.#client = { client_id: options.clientId };
    const auth = options.clientAuth;
    this.#clientAuth =
      typeof auth === 'function'
        ? auth
        : auth.method === 'client_secret_post'
          ? oauth.ClientSecretPost(auth.clientSecret)
          : oauth.ClientSecretBasic(auth.clientSecret);
    this.#cache = new ExpiringCache(options.cacheMaxEntries ?? 1000);
    const where = new URL(options.introspectionEndpoint ?? options.issuer);
    this.#insecure = options.allowInsecureRequests ?? (where.protocol === 'http:' && isLoopback(where));
  }

  async verify(token: string, context: TokenContext): Promise<AuthInfo> {
    if (token.length > DEFAULT_MAX_TOKEN_LENGTH) throw new InvalidTokenError('the access token is too large');
    const key = createHash('sha256').update(token).digest('base64url');
    const now = this.#now();
    const cached = this.#cache.get(key, now);
    if (cached) return this.#check(cached, context, now);
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#introspect(token).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    const info = await pending;
    const checked = this.#check(info, context, this.#now());
    const ttlMs = (this.#options.cacheTtlSec ?? 300) * 1000;
    const until = Math.min(now + ttlMs, (info.expiresAt ?? Number.POSITIVE_INFINITY) * 1000);
    this.#cache.set(key, info, until);
    return checked;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  /** Checks that hold whether the answer is fresh or cached. */
  #check(info: AuthInfo, context: TokenContext, now: number): AuthInfo {
    if (info.expiresAt !== undefined && info.expiresAt + CLOCK_SKEW_SEC < now / 1000)
      throw new InvalidTokenError('the access token expired');
    const audience = this.#options.audience ?? context.resource;
    if (!audienceIncludes(info.claims.aud, typeof audience === 'string' ? [audience] : audience))
      throw new InvalidTokenError('the access token was not issued for this resource');
    return info;
  }

  async #introspect(token: string): Promise<AuthInfo> {
    const server = await this.#authorizationServer();
    let answer: oauth.IntrospectionResponse;
    try {
      const response = await oauth.introspectionRequest(server, this.#client, this.#clientAuth, token, {
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000),
        [oauth.allowInsecureRequests]: this.#insecure,
      });
      answer = await oauth.processIntrospectionResponse(server, this.#client, response);
    } catch (error) {
      throw new VerifierUnavailableError('token introspection failed', { cause: error });
    }
    if (!answer.active) throw new InvalidTokenError('the access token is not active');
    const claims = answer as unknown as TokenClaims;
    // RFC 7662 section 2.2: `iss` is optional; when present it must be the server we asked.
    if (claims.iss !== undefined && claims.iss !== this.#options.issuer)
      throw new InvalidTokenError('the access token is from another issuer');
    return authInfoOf({ ...claims, iss: this.#options.issuer });
  }

  #authorizationServer(): Promise<oauth.AuthorizationServer> {
    const { issuer, introspectionEndpoint } = this.#options;
    if (introspectionEndpoint !== undefined)
      return Promise.resolve({ issuer, introspection_endpoint: introspectionEndpoint });
    this.#server ??= this.#discover(new URL(issuer)).catch((error: unknown) => {
      this.#server = undefined;
      throw new VerifierUnavailableError('authorization server metadata unavailable', { cause: error });
    });
    return this.#server;
  }

  async #discover(issuer: URL): Promise<oauth.AuthorizationServer> {
    const response = await oauth.discoveryRequest(issuer, {
      algorithm: 'oauth2',
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000),
      [oauth.allowInsecureRequests]: this.#insecure,
    });
    const server = await oauth.processDiscoveryResponse(issuer, response);
    if (!server.introspection_endpoint)
      throw new Error('the authorization server has no introspection endpoint');
    return server;
  }
}
