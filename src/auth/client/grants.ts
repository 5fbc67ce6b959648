/**
 * Token endpoint requests, each done by oauth4webapi: authorization code (with PKCE), refresh, client
 * credentials (SEP-1046), JWT bearer (RFC 7523; workload identity, SEP-1933) and the enterprise-managed
 * token exchange for an ID-JAG (SEP-990). Every request carries RFC 8707 `resource`; a DPoP nonce challenge
 * (RFC 9449 §8) is answered once with the nonce the handle recorded.
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/** What every token request needs: the server, our client, how we authenticate, and the transport options. */
export interface TokenEndpoint {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly fetch: typeof fetch;
  readonly dpop: oauth.DPoPHandle | undefined;
}

function requestOptions(
  endpoint: TokenEndpoint,
  additional?: Record<string, string>,
): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.customFetch]: endpoint.fetch,
    // http is allowed only where the network policy allows it (loopback); the policy runs in `fetch`.
    [oauth.allowInsecureRequests]: true,
    ...(endpoint.dpop ? { DPoP: endpoint.dpop } : {}),
    ...(additional ? { additionalParameters: additional } : {}),
  };
}

/** The error to surface: the server's `error` and description, never a request body (it may hold secrets). */
function tokenError(error: unknown): AuthorizationError {
  if (error instanceof AuthorizationError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ? `: ${error.error_description.slice(0, 200)}` : '';
    return new AuthorizationError(
      'token_request_failed',
      `token request refused (${error.error}${description})`,
      {
        cause: error,
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AuthorizationError('token_request_failed', `token request failed: ${message}`, { cause: error });
}

async function exchange(
  endpoint: TokenEndpoint,
  send: () => Promise<Response>,
  process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
): Promise<oauth.TokenEndpointResponse> {
  try {
    try {
      return await process(await send());
    } catch (error) {
      // RFC 9449 §8: the handle kept the nonce from the 400; the retry's proof carries it.
      if (endpoint.dpop && oauth.isDPoPNonceError(error)) return await process(await send());
      throw error;
    }
  } catch (error) {
    throw tokenError(error);
  }
}

function scopeParameters(resource: string, scope: readonly string[] | undefined): Record<string, string> {
  return { resource, ...(scope && scope.length > 0 ? { scope: scope.join(' ') } : {}) };
}

export function authorizationCodeGrant(
  endpoint: TokenEndpoint,
  callback: URLSearchParams,
  redirectUri: string,
  codeVerifier: string,
  resource: string,
): Promise<oauth.TokenEndpointResponse> {
  const { as, client, clientAuth } = endpoint;
  return exchange(
    endpoint,
    () =>
      oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, redirectUri, codeVerifier, {
        ...requestOptions(endpoint, { resource }),
      }),
    (response) => oauth.processAuthorizationCodeResponse(as, client, response),
  );
}

export function refreshGrant(
  endpoint: TokenEndpoint,
  refreshToken: string,
  resource: string,
): Promise<oauth.TokenEndpointResponse> {
  const { as, client, clientAuth } = endpoint;
  return exchange(
    endpoint,
    () =>
      oauth.refreshTokenGrantRequest(
        as,
        client,
        clientAuth,
        refreshToken,
        requestOptions(endpoint, { resource }),
      ),
    (response) => oauth.processRefreshTokenResponse(as, client, response),
  );
}

export function clientCredentialsGrant(
  endpoint: TokenEndpoint,
  resource: string,
  scope: readonly string[] | undefined,
): Promise<oauth.TokenEndpointResponse> {
  const { as, client, clientAuth } = endpoint;
  return exchange(
    endpoint,
    () =>
      oauth.clientCredentialsGrantRequest(
        as,
        client,
        clientAuth,
        scopeParameters(resource, scope),
        requestOptions(endpoint),
      ),
    (response) => oauth.processClientCredentialsResponse(as, client, response),
  );
}

/** RFC 7523 §2.1: the assertion is the grant. A refusal is final: no retry, no other grant (SEP-1933). */
export function jwtBearerGrant(
  endpoint: TokenEndpoint,
  assertion: string,
  resource: string,
  scope: readonly string[] | undefined,
): Promise<oauth.TokenEndpointResponse> {
  const { as, client, clientAuth } = endpoint;
  const parameters = { assertion, ...scopeParameters(resource, scope) };
  return exchange(
    endpoint,
    () =>
      oauth.genericTokenEndpointRequest(
        as,
        client,
        clientAuth,
        JWT_BEARER_GRANT,
        parameters,
        requestOptions(endpoint),
      ),
    (response) => oauth.processGenericTokenEndpointResponse(as, client, response),
  );
}

/**
 * SEP-990 step 1 (RFC 8693 at the enterprise IdP): the user's ID token for an Identity Assertion JWT
 * Authorization Grant (ID-JAG) for `audience` (the MCP authorization server) and `resource`.
 */
export async function requestIdJag(
  idp: TokenEndpoint,
  idToken: string,
  audience: string,
  resource: string,
  scope: readonly string[] | undefined,
): Promise<string> {
  const parameters = {
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience,
    subject_token: idToken,
    subject_token_type: ID_TOKEN_TYPE,
    ...scopeParameters(resource, scope),
  };
  const response = await exchange(
    idp,
    () =>
      oauth.genericTokenEndpointRequest(
        idp.as,
        idp.client,
        idp.clientAuth,
        TOKEN_EXCHANGE_GRANT,
        parameters,
        requestOptions(idp),
      ),
    // RFC 8693 §2.2.1: an issued token that is not an access token has token_type N_A.
    (response) =>
      oauth.processGenericTokenEndpointResponse(idp.as, idp.client, response, {
        recognizedTokenTypes: { n_a: () => {} },
      }),
  );
  if (response.issued_token_type !== ID_JAG_TOKEN_TYPE)
    throw new AuthorizationError('token_request_failed', 'the identity provider issued no ID-JAG');
  return response.access_token;
}
