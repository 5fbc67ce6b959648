import type { HostMatcher, OriginMatcher, ResolvedOptions } from './options.js';
import { splitHost } from './options.js';
import type { HeaderReader } from './types.js';

function hostAllowed(matcher: HostMatcher, host: string): boolean {
  const lower = host.toLowerCase();
  if (matcher.exact.has(lower)) return true;
  const { hostname, port } = splitHost(lower);
  // A port is digits and nothing else: 'localhost:80@evil.example' names no localhost.
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return false;
  return matcher.anyPort.has(hostname);
}

/** The last Host allowed, and by which matcher: a client sends the same one on every request. */
let lastAllowed: { readonly matcher: HostMatcher; readonly host: string } | undefined;

function originAllowed(matcher: OriginMatcher, origin: string): boolean {
  const lower = origin.toLowerCase();
  if (matcher.exactOrigins.has(lower)) return true;
  // scheme://host[:port], nothing else (an origin has no path).
  const match = /^(https?):\/\/([^/?#@\s]+)$/.exec(lower);
  return match !== null && hostAllowed(matcher.hosts, match[2] as string);
}

/**
 * 2025-11-25 / 2026-07-28 basic/transports: Security. DNS rebinding is stopped by checking both headers: a bad
 * Origin alone or a bad Host alone is refused (a check of Host only lets a rebinding page with a spoofed Host
 * through some proxies; a check of Origin only misses non-browser callers). Returns the reason, or undefined.
 */
export function rejectForeignRequest(
  options: ResolvedOptions,
  header: HeaderReader,
  fallbackHost?: string,
): string | undefined {
  const hosts = options.allowedHosts;
  if (hosts) {
    const host = header('host') ?? fallbackHost;
    if (host === undefined || host === '') return 'Forbidden: missing Host header';
    if (lastAllowed?.host !== host || lastAllowed.matcher !== hosts) {
      if (!hostAllowed(hosts, host)) return `Forbidden: Host ${JSON.stringify(host)} is not allowed`;
      lastAllowed = { matcher: hosts, host };
    }
  }
  if (options.allowedOrigins) {
    const origin = header('origin');
    if (origin !== undefined && !originAllowed(options.allowedOrigins, origin)) {
      return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`;
    }
  }
  return undefined;
}
