/**
 * Reading a resource server's `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1) with
 * oauth4webapi's own challenge parser, so the client interprets challenges exactly as the library does.
 */
import * as oauth from 'oauth4webapi';

export interface Challenge {
  /** `bearer` or `dpop` (lowercase), or undefined when the server sent no challenge. */
  readonly scheme: string | undefined;
  readonly error: string | undefined;
  /** The scopes the server asks for (space-separated in the header). */
  readonly scope: string[] | undefined;
  /** RFC 9728 §5.1: where the protected-resource metadata is. */
  readonly resourceMetadata: string | undefined;
}

const NO_CHALLENGE: Challenge = {
  scheme: undefined,
  error: undefined,
  scope: undefined,
  resourceMetadata: undefined,
};
/** Never contacted: the header is handed to the parser through a fetch that answers locally. */
const PARSE_URL = new URL('https://challenge.invalid/');
const MAX_HEADER = 8 * 1024;

async function parseChallenges(header: string): Promise<oauth.WWWAuthenticateChallenge[]> {
  try {
    await oauth.protectedResourceRequest('-', 'GET', PARSE_URL, undefined, undefined, {
      [oauth.customFetch]: async () =>
        new Response(null, { status: 401, headers: { 'www-authenticate': header } }),
    });
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return error.cause;
  }
  return [];
}

/** The DPoP or Bearer challenge of a header (the first of either), as the client acts on it. */
export async function readChallenge(header: string | undefined): Promise<Challenge> {
  if (!header || header.length > MAX_HEADER) return NO_CHALLENGE;
  const challenges = await parseChallenges(header);
  const chosen =
    challenges.find((challenge) => challenge.scheme === 'dpop' || challenge.scheme === 'bearer') ??
    challenges[0];
  if (!chosen) return NO_CHALLENGE;
  const { parameters } = chosen;
  const scope = parameters.scope?.split(' ').filter(Boolean);
  return {
    scheme: chosen.scheme,
    error: parameters.error,
    scope: scope && scope.length > 0 ? scope : undefined,
    resourceMetadata: parameters.resource_metadata,
  };
}
