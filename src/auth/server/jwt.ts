import { createHash } from 'node:crypto';
import {
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
} from 'jose';
import { ExpiringCache } from './cache.js';
import {
  type AuthInfo,
  InvalidTokenError,
  type TokenContext,
  type TokenVerifier,
  VerifierUnavailableError,
  audienceIncludes,
  authInfoOf,
} from './types.js';

export interface JwtVerifierOptions {
  /** The authorization server's JWKS: its URL (fetched and cached by jose), or the key set itself. */
  jwks: string | URL | JSONWebKeySet;
  /** The `iss` every token must carry (the authorization server's issuer identifier, compared exactly). */
  issuer: string;
  /**
   * Accepted `aud` values. Default: the MCP server's canonical resource URL (RFC 8707), the only audience the
   * 2026-07-28 authorization spec allows a server to accept.
   */
  audience?: string | readonly string[];
  /** Accepted signature algorithms (default RS256, PS256, ES256, EdDSA); `none` is never accepted. */
  algorithms?: readonly string[];
  /** Clock skew tolerated on `exp` and `nbf`, in seconds (default 10). */
  clockToleranceSec?: number;
  /** Required `typ` header, e.g. 'at+jwt' (RFC 9068 section 2.1). Default: not checked. */
  typ?: string;
  /** Largest token accepted, in characters (default 16 KiB): a larger one is refused before any decoding. */
  maxTokenLength?: number;
  /** Remote JWKS: how long one fetch may take (default 5 s), and the least time between refetches (30 s). */
  jwksTimeoutMs?: number;
  jwksCooldownMs?: number;
  /**
   * Tokens already verified, remembered (by a hash, never the token) until their `exp` so a client reusing its
   * token costs a hash, not a signature check, per request (default 1000 tokens; 0 disables).
   */
  cacheMaxEntries?: number;
  /** The clock, in ms since the epoch (tests move it). */
  now?: () => number;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
export const DEFAULT_MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * A self-contained JWT access token (RFC 9068) checked against the authorization server's keys: signature with
 * an allowed algorithm and a known `kid` (an unknown one triggers at most one JWKS refetch per cooldown, then is
 * refused), issuer, audience, `exp` and `nbf` with a small skew.
 */
export class JwtVerifier implements TokenVerifier {
  readonly #keys: JWTVerifyGetKey;
  readonly #options: JwtVerifierOptions;
  readonly #algorithms: string[];
  readonly #verified: ExpiringCache<AuthInfo> | undefined;
  /**
   * The last token verified, for the common case of a client that sends the same token on every request: a
   * string comparison instead of a hash. Only a token this verifier just accepted is held, until its expiry.
   */
  #last: { token: string; audiences: string; info: AuthInfo; expiresAt: number } | undefined;

  constructor(options: JwtVerifierOptions) {
    this.#options = options;
    this.#algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)].filter((alg) => alg !== 'none');
    if (this.#algorithms.length === 0) throw new RangeError('JwtVerifier needs at least one algorithm');
    const cacheSize = options.cacheMaxEntries ?? 1000;
    this.#verified = cacheSize > 0 ? new ExpiringCache(cacheSize) : undefined;
    const { jwks } = options;
    this.#keys =
      typeof jwks === 'string' || jwks instanceof URL
        ? createRemoteJWKSet(new URL(jwks), {
            timeoutDuration: options.jwksTimeoutMs ?? 5000,
            cooldownDuration: options.jwksCooldownMs ?? 30_000,
          })
        : createLocalJWKSet(jwks);
  }

  async verify(token: string, context: TokenContext): Promise<AuthInfo> {
    const options = this.#options;
    if (token.length > (options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH))
      throw new InvalidTokenError('the access token is too large');
    const audience = options.audience ?? context.resource;
    const audiences = typeof audience === 'string' ? [audience] : [...audience];
    const now = options.now?.() ?? Date.now();
    const audienceKey = audiences.join(' ');
    const last = this.#last;
    if (last && last.token === token && last.audiences === audienceKey && now < last.expiresAt)
      return last.info;
    // The audience is part of the key: one verifier may serve several resources.
    const key =
      this.#verified && createHash('sha256').update(token).update(`\0${audienceKey}`).digest('base64url');
    const cached = key === undefined ? undefined : this.#verified?.get(key, now);
    if (cached) return cached;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        issuer: options.issuer,
        audience: audiences,
        algorithms: this.#algorithms,
        clockTolerance: options.clockToleranceSec ?? 10,
        requiredClaims: ['exp'],
        ...(options.typ === undefined ? {} : { typ: options.typ }),
        ...(options.now === undefined ? {} : { currentDate: new Date(now) }),
      }));
    } catch (error) {
      throw translate(error);
    }
    // jose checked `aud`; kept as a second line in case options ever drift apart.
    if (!audienceIncludes(payload.aud, audiences))
      throw new InvalidTokenError('the access token was not issued for this resource');
    const info = authInfoOf(payload);
    // Kept until exp plus the skew jose allowed: past that, the next use is verified (and refused) afresh.
    if (key !== undefined && typeof payload.exp === 'number') {
      const expiresAt = (payload.exp + (options.clockToleranceSec ?? 10)) * 1000;
      this.#verified?.set(key, info, expiresAt);
      this.#last = { token, audiences: audienceKey, info, expiresAt };
    }
    return info;
  }
}

/** A jose failure as one of our two errors, with a fixed description (never the token, never a claim value). */
function translate(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('the access token expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return new InvalidTokenError('the access token was not issued for this resource');
    if (error.claim === 'iss') return new InvalidTokenError('the access token is from another issuer');
    if (error.claim === 'nbf') return new InvalidTokenError('the access token is not valid yet');
    return new InvalidTokenError('the access token has an invalid claim', { cause: error });
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return new InvalidTokenError('the access token is signed with an unknown key');
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new InvalidTokenError('the access token is signed with a refused algorithm');
  // A failed JWKS fetch: a timeout, a malformed set, or jose's bare JOSEError for a non-200 answer (every
  // verdict on a token is a subclass).
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    (error instanceof errors.JOSEError && error.constructor === errors.JOSEError)
  )
    return new VerifierUnavailableError('the authorization server keys are unavailable', { cause: error });
  if (error instanceof errors.JOSEError) return new InvalidTokenError('the access token is invalid');
  // Not jose's verdict: the JWKS fetch failed (network) or answered something other than 200.
  return new VerifierUnavailableError('the authorization server keys are unavailable', { cause: error });
}
