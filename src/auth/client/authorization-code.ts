/**
 * OAuth 2.1 authorization code with PKCE (2025-11-25 basic/authorization: Authorization Code Protection): S256
 * or nothing, a fresh `state`, RFC 8707 `resource`, and the authorization response's `state` and `iss`
 * (RFC 9207) checked by oauth4webapi before the code is redeemed.
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import { type TokenEndpoint, authorizationCodeGrant } from './grants.js';
import { assertOpenableUrl } from './network.js';
import type { AuthorizationUserAgent } from './user-agent.js';

/** Refuses a server that does not advertise S256 (its metadata must say so; 2025-03-26 defaults assume it). */
export function assertPkceS256(as: oauth.AuthorizationServer): void {
  if (!as.code_challenge_methods_supported?.includes('S256'))
    throw new AuthorizationError(
      'pkce_unsupported',
      `${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported); refusing to authorize`,
    );
}

export interface AuthorizationRequest {
  readonly endpoint: TokenEndpoint;
  readonly userAgent: AuthorizationUserAgent;
  readonly resource: string;
  readonly scope: readonly string[] | undefined;
  readonly signal?: AbortSignal;
}

function authorizationUrl(request: AuthorizationRequest, challenge: string, state: string): URL {
  const { as, client } = request.endpoint;
  if (typeof as.authorization_endpoint !== 'string')
    throw new AuthorizationError('metadata_invalid', `${as.issuer} has no authorization_endpoint`);
  const url = assertOpenableUrl(as.authorization_endpoint);
  const parameters = url.searchParams;
  parameters.set('response_type', 'code');
  parameters.set('client_id', client.client_id);
  parameters.set('redirect_uri', request.userAgent.redirectUri);
  parameters.set('code_challenge', challenge);
  parameters.set('code_challenge_method', 'S256');
  parameters.set('state', state);
  parameters.set('resource', request.resource);
  if (request.scope && request.scope.length > 0) parameters.set('scope', request.scope.join(' '));
  // OpenID Connect Core 11: a request for offline_access uses prompt=consent, or an OpenID Provider
  // (oidc-provider among them) grants the rest and issues no refresh token.
  if (request.scope?.includes('offline_access')) parameters.set('prompt', 'consent');
  return assertOpenableUrl(url);
}

export async function authorizeWithCode(request: AuthorizationRequest): Promise<oauth.TokenEndpointResponse> {
  const { as, client } = request.endpoint;
  assertPkceS256(as);
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  const state = oauth.generateRandomState();
  const url = authorizationUrl(request, challenge, state);
  const callback = await request.userAgent.authorize(url, request.signal);
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(as, client, callback, state);
  } catch (error) {
    const reason =
      error instanceof oauth.AuthorizationResponseError
        ? `${error.error}${error.error_description ? `: ${error.error_description.slice(0, 200)}` : ''}`
        : error instanceof Error
          ? error.message
          : String(error);
    throw new AuthorizationError('authorization_failed', `authorization response refused (${reason})`, {
      cause: error,
    });
  }
  return authorizationCodeGrant(
    request.endpoint,
    parameters,
    request.userAgent.redirectUri,
    verifier,
    request.resource,
  );
}
