/** Every MCP revision agentforge speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2026-07-28';
/** The newest revision of the handshake era (initialize + sessions). */
export const LATEST_HANDSHAKE_VERSION: ProtocolVersion = '2025-11-25';

/**
 * The two eras. `handshake`: initialize / notifications/initialized and (on HTTP) sessions, 2024-11-05 through
 * 2025-11-25. `stateless`: 2026-07-28 and later, where every request carries its version and capabilities in `_meta`.
 */
export type Era = 'handshake' | 'stateless';

export function isSupportedVersion(version: unknown): version is ProtocolVersion {
  return typeof version === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

/** Date-ordered comparison of revision strings (they are ISO dates). */
export function compareVersions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function eraOf(version: string): Era {
  return compareVersions(version, '2026-07-28') >= 0 ? 'stateless' : 'handshake';
}

export function handshakeVersions(): ProtocolVersion[] {
  return SUPPORTED_PROTOCOL_VERSIONS.filter((v) => eraOf(v) === 'handshake');
}

export function statelessVersions(): ProtocolVersion[] {
  return SUPPORTED_PROTOCOL_VERSIONS.filter((v) => eraOf(v) === 'stateless');
}

/** JSON-RPC batches were added in 2025-03-26 and removed again in 2025-06-18. */
export function allowsBatches(version: string): boolean {
  return version === '2025-03-26';
}

/**
 * Handshake negotiation (basic/lifecycle): answer with the requested version when supported, else our newest
 * handshake-era version.
 */
export function negotiateHandshakeVersion(requested: unknown): ProtocolVersion {
  if (isSupportedVersion(requested) && eraOf(requested) === 'handshake') return requested;
  return LATEST_HANDSHAKE_VERSION;
}
