/** Local failures of the OAuth client: thrown to the caller with a string code, never carrying a token. */
export type AuthorizationErrorCode =
  /** The protected-resource metadata names another resource than the server we called (RFC 9728 §3.3). */
  | 'resource_mismatch'
  /** Authorization-server metadata is missing, unreadable, or its issuer is not the one we asked for. */
  | 'metadata_invalid'
  /** The authorization server does not advertise PKCE S256 (2025-11-25 basic/authorization: PKCE). */
  | 'pkce_unsupported'
  /** A URL we would fetch or open is not allowed (scheme, address range, characters). */
  | 'unsafe_url'
  /** No way to obtain client credentials for this authorization server. */
  | 'registration_unavailable'
  /** The authorization response was an error, or failed its state / iss checks (RFC 9207). */
  | 'authorization_failed'
  /** The token endpoint refused the grant. */
  | 'token_request_failed'
  /** The server kept refusing our tokens (401 after authorizing, 403 past the step-up limit). */
  | 'unauthorized';

export class AuthorizationError extends Error {
  readonly code: AuthorizationErrorCode;

  constructor(code: AuthorizationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthorizationError';
    this.code = code;
  }
}

export function isAuthorizationError(
  error: unknown,
  code?: AuthorizationErrorCode,
): error is AuthorizationError {
  return error instanceof AuthorizationError && (code === undefined || error.code === code);
}
