/**
 * Well-known metadata locations and canonical resource identifiers, shared by the OAuth client (discovery) and
 * the resource server (serving its own metadata).
 */

export const PROTECTED_RESOURCE_SUFFIX = '/.well-known/oauth-protected-resource';
export const OAUTH_SERVER_SUFFIX = '/.well-known/oauth-authorization-server';
export const OPENID_CONFIGURATION_SUFFIX = '/.well-known/openid-configuration';

/** The path of a URL without its trailing slash ('' for the root). */
function trimmedPath(url: URL): string {
  return url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
}

/**
 * RFC 8707 §2 / 2025-11-25 basic/authorization: Canonical Server URI. Scheme and host lowercase (URL does it),
 * no fragment, no query, no trailing slash unless the path is the root.
 */
export function canonicalResource(url: string | URL): string {
  const parsed = new URL(url);
  return `${parsed.origin}${trimmedPath(parsed)}`;
}

/**
 * RFC 9728 §3.1: protected-resource metadata is at the well-known suffix inserted between the host and the
 * path; the 2025-11-25 basic/authorization order then falls back to the root well-known location.
 */
export function protectedResourceMetadataUrls(resource: string | URL): URL[] {
  const parsed = new URL(resource);
  const path = trimmedPath(parsed);
  const root = new URL(PROTECTED_RESOURCE_SUFFIX, parsed.origin);
  return path ? [new URL(`${PROTECTED_RESOURCE_SUFFIX}${path}`, parsed.origin), root] : [root];
}

/**
 * 2025-11-25 basic/authorization: Authorization Server Metadata Discovery. For an issuer with a path: OAuth
 * path-insertion (RFC 8414 §3.1), OIDC path-insertion, OIDC path-append (OpenID Connect Discovery §4); for one
 * without: the OAuth then the OIDC location at the root.
 */
export function authorizationServerMetadataUrls(issuer: string | URL): URL[] {
  const parsed = new URL(issuer);
  const path = trimmedPath(parsed);
  if (!path)
    return [new URL(OAUTH_SERVER_SUFFIX, parsed.origin), new URL(OPENID_CONFIGURATION_SUFFIX, parsed.origin)];
  return [
    new URL(`${OAUTH_SERVER_SUFFIX}${path}`, parsed.origin),
    new URL(`${OPENID_CONFIGURATION_SUFFIX}${path}`, parsed.origin),
    new URL(`${path}${OPENID_CONFIGURATION_SUFFIX}`, parsed.origin),
  ];
}
