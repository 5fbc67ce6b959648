/**
 * Where the OAuth client may send requests (metadata, registration, token) and which URLs it may open in a
 * browser. Server-supplied URLs are hostile: a protected-resource document naming 169.254.169.254 must not make
 * us fetch cloud credentials (2025-11-25 basic/security_best_practices: Server-Side Request Forgery).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AuthorizationError } from './errors.js';

/** The ranges a destination address falls in; `public` is everything else. */
export type AddressRange = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified';

const ranges: Array<[Exclude<AddressRange, 'public'>, BlockList]> = [
  [
    'loopback',
    blockList([
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
  ],
  [
    'link-local',
    blockList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  [
    'private',
    blockList([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ]),
  ],
  [
    'unspecified',
    blockList([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
];

function blockList(subnets: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of subnets) list.addSubnet(address, prefix, family);
  return list;
}

/** The range of an IP address literal; IPv4-mapped IPv6 addresses count as their IPv4 address. */
export function addressRange(address: string): AddressRange {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  const ip = mapped ?? bare;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const [range, list] of ranges) if (list.check(ip, family)) return range;
  return 'public';
}

function isLoopbackName(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    (isIP(host) !== 0 && addressRange(host) === 'loopback')
  );
}

export interface NetworkPolicyOptions {
  /** Ranges the user allows besides public ones (and the MCP server's own range). */
  allowRanges?: readonly AddressRange[];
  /** Resolver (tests); default: the system resolver, every address. */
  resolve?: (hostname: string) => Promise<string[]>;
}

const systemResolve = async (hostname: string): Promise<string[]> =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The destinations allowed for one MCP server: public addresses, the range the server itself is in (a server
 * on loopback is local development, so its authorization server may be too), and what the user allows.
 * Link-local is never implied by anything but the user.
 */
export class NetworkPolicy {
  readonly #allowed: Set<AddressRange>;
  readonly #resolve: (hostname: string) => Promise<string[]>;

  constructor(serverUrl: URL, options: NetworkPolicyOptions = {}) {
    this.#allowed = new Set<AddressRange>(['public', ...(options.allowRanges ?? [])]);
    const host = serverUrl.hostname.replace(/^\[|\]$/g, '');
    if (isLoopbackName(host)) this.#allowed.add('loopback');
    else if (isIP(host) !== 0) {
      const range = addressRange(host);
      if (range === 'private') this.#allowed.add('private');
    }
    this.#resolve = options.resolve ?? systemResolve;
  }

  allows(range: AddressRange): boolean {
    return this.#allowed.has(range);
  }

  /**
   * Refuses a URL before any socket is opened: only https, or http to a loopback host; every address the
   * host resolves to must be in an allowed range.
   */
  async check(url: URL): Promise<void> {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackName(url.hostname)))
      throw new AuthorizationError(
        'unsafe_url',
        `refusing ${url.protocol} URL ${url.origin}: https is required`,
      );
    if (url.username || url.password)
      throw new AuthorizationError('unsafe_url', `refusing a URL with credentials: ${url.origin}`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) !== 0 ? [host] : await this.#resolve(host);
    if (addresses.length === 0) throw new AuthorizationError('unsafe_url', `${host} does not resolve`);
    for (const address of addresses) {
      const range = addressRange(address);
      if (!this.#allowed.has(range))
        throw new AuthorizationError(
          'unsafe_url',
          `refusing to contact ${url.origin}: ${address} is a ${range} address (allow it with allowRanges)`,
        );
    }
  }
}

/** Cap on any metadata, registration or token response body. */
export const MAX_OAUTH_RESPONSE_BYTES = 1024 * 1024;

/**
 * A fetch for oauth4webapi's `customFetch`: the policy is checked before each request, redirects are never
 * followed, and the body is read against a cap before the library parses it.
 */
export function guardedFetch(policy: NetworkPolicy, signal?: AbortSignal): typeof fetch {
  const capped = cappedFetch(signal);
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    await policy.check(url);
    return capped(url, init);
  };
}

/**
 * A fetch that never follows redirects and reads the whole body against {@link MAX_OAUTH_RESPONSE_BYTES}
 * before anyone parses it: for endpoints the operator configured, where no address policy applies.
 */
export function cappedFetch(signal?: AbortSignal): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, {
      ...init,
      redirect: 'manual',
      signal:
        signal && init?.signal ? AbortSignal.any([signal, init.signal]) : (init?.signal ?? signal ?? null),
    });
    const body = await readCapped(response, MAX_OAUTH_RESPONSE_BYTES);
    const bytes = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    return new Response(response.status === 204 || response.status === 304 ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function readCapped(response: Response, cap: number): Promise<Buffer> {
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      throw new AuthorizationError('metadata_invalid', `response from ${response.url} exceeds ${cap} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Characters a shell or a URL handler could act on; a well-formed authorization URL has none. */
const UNSAFE_URL_CHARACTERS = /[\s`$;|<>\\'"(){}^!*]|\p{Cc}/u;

/**
 * Whether an authorization URL may be shown to the user's browser: https (or http on loopback), no
 * credentials, and no character a shell or URL handler would interpret (`javascript:`, `file:` and
 * `$(...)` are refused). Returns the URL, or throws.
 */
export function assertOpenableUrl(value: string | URL): URL {
  // The text as the server sent it, too: URL parsing percent-encodes some characters (a backtick) that a
  // well-formed endpoint never has in the first place.
  if (typeof value === 'string' && UNSAFE_URL_CHARACTERS.test(value))
    throw new AuthorizationError(
      'unsafe_url',
      'refusing to open an authorization URL with unsafe characters',
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthorizationError('unsafe_url', 'the authorization URL is not a URL');
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackName(url.hostname));
  if (!secure)
    throw new AuthorizationError('unsafe_url', `refusing to open a ${url.protocol} authorization URL`);
  if (url.username || url.password || UNSAFE_URL_CHARACTERS.test(url.href))
    throw new AuthorizationError(
      'unsafe_url',
      'refusing to open an authorization URL with unsafe characters',
    );
  return url;
}
