/**
 * Enterprise-managed authorization (SEP-990, the Identity Assertion JWT Authorization Grant): the user's ID
 * token from the enterprise IdP is exchanged there (RFC 8693) for an ID-JAG naming the MCP authorization server
 * and the resource, which the client then presents to that server as an RFC 7523 JWT bearer grant.
 */
import * as oauth from 'oauth4webapi';
import { type TokenEndpoint, jwtBearerGrant, requestIdJag } from './grants.js';

export interface EnterpriseIdentityProvider {
  /** The IdP's token endpoint (where the token exchange happens). */
  readonly tokenEndpoint: string;
  /** The IdP's issuer identifier (default: the token endpoint's origin). */
  readonly issuer?: string;
  /** This client's id at the IdP. */
  readonly clientId: string;
  readonly clientSecret?: string;
  /** The user's ID token from the IdP (the host signed the user in with OIDC). */
  readonly idToken: () => string | Promise<string>;
}

export async function enterpriseGrant(
  endpoint: TokenEndpoint,
  idp: EnterpriseIdentityProvider,
  fetchFn: typeof fetch,
  resource: string,
  scope: readonly string[] | undefined,
): Promise<oauth.TokenEndpointResponse> {
  const idpEndpoint: TokenEndpoint = {
    as: { issuer: idp.issuer ?? new URL(idp.tokenEndpoint).origin, token_endpoint: idp.tokenEndpoint },
    client: { client_id: idp.clientId },
    clientAuth: idp.clientSecret ? oauth.ClientSecretBasic(idp.clientSecret) : oauth.None(),
    fetch: fetchFn,
    dpop: undefined,
  };
  const idJag = await requestIdJag(idpEndpoint, await idp.idToken(), endpoint.as.issuer, resource, scope);
  return jwtBearerGrant(endpoint, idJag, resource, scope);
}
