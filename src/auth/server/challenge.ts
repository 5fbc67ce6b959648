/** One RFC 6750 section 3 / RFC 9449 section 7.1 challenge, as the WWW-Authenticate header value. */
export interface Challenge {
  readonly scheme: 'Bearer' | 'DPoP';
  readonly error?:
    | 'invalid_request'
    | 'invalid_token'
    | 'insufficient_scope'
    | 'invalid_dpop_proof'
    | 'use_dpop_nonce';
  readonly description?: string;
  /** RFC 9728 section 5.1. */
  readonly resourceMetadata: string;
  readonly scopes?: readonly string[];
  /** DPoP only: the proof algorithms accepted. */
  readonly algorithms?: readonly string[];
}

/** RFC 7230 quoted-string content: printable ASCII, with `"` and `\` escaped; anything else dropped. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '\\$&')}"`;
}

export function formatChallenge(challenge: Challenge): string {
  const params: string[] = [];
  if (challenge.error !== undefined) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.description !== undefined) params.push(`error_description=${quoted(challenge.description)}`);
  params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  if (challenge.scopes && challenge.scopes.length > 0)
    params.push(`scope=${quoted(challenge.scopes.join(' '))}`);
  if (challenge.algorithms && challenge.algorithms.length > 0)
    params.push(`algs=${quoted(challenge.algorithms.join(' '))}`);
  return `${challenge.scheme} ${params.join(', ')}`;
}

/** The HTTP answer carrying a challenge: the status, the header, and an OAuth-style JSON error body. */
export function challengeResponse(
  status: 400 | 401 | 403,
  challenge: Challenge,
): { status: number; headers: Record<string, string>; body: string } {
  const body: Record<string, string> = { error: challenge.error ?? 'invalid_token' };
  if (challenge.description !== undefined) body.error_description = challenge.description;
  if (challenge.error === undefined) {
    // No credentials at all: RFC 6750 section 3.1 says no error code in the challenge; the body explains.
    body.error = 'unauthorized';
    body.error_description = challenge.description ?? 'an access token is required';
  }
  return {
    status,
    headers: {
      'www-authenticate': formatChallenge(challenge),
      'content-type': 'application/json',
      'cache-control': 'no-store',
    },
    body: JSON.stringify(body),
  };
}
