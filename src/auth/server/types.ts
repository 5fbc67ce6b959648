import type { AuthInfo } from '../../server/types.js';

export type { AuthInfo };

/** What a verifier knows of the request a token came with (never its body: it has not been read yet). */
export interface TokenContext {
  /**
   * The canonical URL of this MCP server (RFC 8707 resource indicator): a token must have been issued for it
   * (2026-07-28 basic/authorization, Token Audience Binding and Validation).
   */
  readonly resource: string;
  readonly method: string;
  readonly path: string;
  readonly header: (name: string) => string | undefined;
}

/**
 * Turns an access token into the verified caller, or throws: `InvalidTokenError` for a token that is not good
 * here (401 invalid_token), `VerifierUnavailableError` when the verifier cannot decide (503, the client keeps
 * its token). A verifier never puts the token in an error message or a log line.
 */
export interface TokenVerifier {
  verify(token: string, context: TokenContext): Promise<AuthInfo>;
}

/** The token is expired, forged, for another audience, revoked or malformed: 401 `error="invalid_token"`. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
  /** Sent as `error_description`: a fixed phrase, never derived from the token. */
  readonly description: string;

  constructor(description: string, options?: { cause?: unknown }) {
    super(description, options);
    this.description = description;
  }
}

/** The JWKS or the introspection endpoint could not be reached or answered nonsense: 503, try later. */
export class VerifierUnavailableError extends Error {
  override readonly name = 'VerifierUnavailableError';
}

/** The members of a JWT payload or an introspection response that AuthInfo is built from. */
export interface TokenClaims {
  readonly [claim: string]: unknown;
  readonly iss?: unknown;
  readonly sub?: unknown;
  readonly aud?: unknown;
  readonly exp?: unknown;
  readonly scope?: unknown;
  readonly client_id?: unknown;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** RFC 9068 section 2.2 / RFC 7662 section 2.2: `scope` is a space-separated string; some servers send `scp`. */
export function scopesOf(claims: TokenClaims): string[] {
  const { scope, scp } = claims as { scope?: unknown; scp?: unknown };
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
}

export function authInfoOf(claims: TokenClaims): AuthInfo {
  return {
    subject: str(claims.sub),
    issuer: str(claims.iss),
    // RFC 9068 section 2.2: client_id; `azp` is the OIDC spelling some servers use instead.
    clientId: str(claims.client_id) ?? str((claims as { azp?: unknown }).azp),
    scopes: scopesOf(claims),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    claims: Object.freeze({ ...claims }),
  };
}

/** True when `aud` (a string or an array of them) names `audience`. */
export function audienceIncludes(aud: unknown, audience: readonly string[]): boolean {
  if (typeof aud === 'string') return audience.includes(aud);
  return Array.isArray(aud) && aud.some((entry) => typeof entry === 'string' && audience.includes(entry));
}
