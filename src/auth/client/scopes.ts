/**
 * 2025-11-25 basic/authorization: Scope Selection Strategy. The challenge's `scope` first, else the resource's
 * `scopes_supported`, else no scope at all; on re-authorization the union with what was granted before
 * (SEP-2350), so a step-up does not lose earlier permissions; `offline_access` only where the authorization
 * server lists it (SEP-2207).
 */
import type { Discovery } from './discovery.js';

export interface ScopeInputs {
  readonly challenged: readonly string[] | undefined;
  readonly discovery: Discovery;
  /** Scopes of the token being replaced, for the same issuer and resource. */
  readonly prior: readonly string[] | undefined;
  /** Scopes the user configured. */
  readonly configured: readonly string[] | undefined;
  /** The grant can yield a refresh token (authorization code). */
  readonly wantsRefreshToken: boolean;
}

export function selectScopes(inputs: ScopeInputs): string[] | undefined {
  const base = inputs.challenged ?? inputs.discovery.resourceMetadata?.scopes_supported ?? [];
  const scopes = new Set([...(inputs.prior ?? []), ...base, ...(inputs.configured ?? [])]);
  const asScopes = inputs.discovery.authorizationServer.scopes_supported;
  if (inputs.wantsRefreshToken && scopes.size > 0 && asScopes?.includes('offline_access'))
    scopes.add('offline_access');
  if (!asScopes?.includes('offline_access')) scopes.delete('offline_access');
  return scopes.size > 0 ? [...scopes] : undefined;
}
