/** RFC 9728 section 2: the protected-resource metadata members this server publishes. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly dpop_bound_access_tokens_required?: boolean;
}

export interface ProtectedResourceOptions {
  /** The canonical URL of the MCP endpoint (RFC 8707 section 2; 2026-07-28 basic/authorization, Canonical Server URI). */
  resource: string;
  /** Issuer identifiers of the authorization servers that issue tokens for it (at least one). */
  authorizationServers: readonly string[];
  scopesSupported?: readonly string[];
  resourceName?: string;
  resourceDocumentation?: string;
}

export const WELL_KNOWN_PROTECTED_RESOURCE = '/.well-known/oauth-protected-resource';

/**
 * A canonical resource URL: absolute, http(s), no fragment (RFC 8707 section 2), lowercase scheme and host
 * (URL does that), no trailing slash on a path (the spec's canonical form), no query.
 */
export function canonicalResource(resource: string): URL {
  const url = new URL(resource);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RangeError('the resource must be an http(s) URL');
  if (url.hash !== '' || resource.includes('#'))
    throw new RangeError('the resource must not have a fragment');
  if (url.search !== '') throw new RangeError('the resource must not have a query');
  return url;
}

/**
 * RFC 9728 section 3.1: the well-known suffix goes between the host and the path, so the metadata of
 * https://example.com/mcp is at https://example.com/.well-known/oauth-protected-resource/mcp. Also served at the
 * bare well-known path, where 2025-06-18+ clients look when the header names none.
 */
export function metadataPaths(resource: URL): { insertion: string; root: string } {
  const path = resource.pathname === '/' ? '' : resource.pathname.replace(/\/+$/, '');
  return { insertion: `${WELL_KNOWN_PROTECTED_RESOURCE}${path}`, root: WELL_KNOWN_PROTECTED_RESOURCE };
}

export function protectedResourceMetadata(
  options: ProtectedResourceOptions,
  dpop: { algorithms: readonly string[]; required: boolean } | undefined,
): ProtectedResourceMetadata {
  if (options.authorizationServers.length === 0)
    throw new RangeError('protected-resource metadata needs at least one authorization server');
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    // RFC 6750 section 2.1 only: tokens in a form body or a query string are never read.
    bearer_methods_supported: ['header'],
  };
  if (options.scopesSupported) document.scopes_supported = [...options.scopesSupported];
  if (options.resourceName !== undefined) document.resource_name = options.resourceName;
  if (options.resourceDocumentation !== undefined)
    document.resource_documentation = options.resourceDocumentation;
  if (dpop) {
    document.dpop_signing_alg_values_supported = [...dpop.algorithms];
    if (dpop.required) document.dpop_bound_access_tokens_required = true;
  }
  return document as unknown as ProtectedResourceMetadata;
}
