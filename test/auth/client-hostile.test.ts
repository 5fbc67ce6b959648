/**
 * The OAuth client against hostile or broken deployments (small servers on 127.0.0.1): it aborts before
 * anything is sent where it should, and never opens, fetches or redeems what it must not.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_AUTHORIZATION_ROUNDS } from '../../src/auth/client/middleware.js';
import { OAuthClientProvider, type OAuthClientOptions } from '../../src/auth/client/provider.js';
import { MemoryTokenStore } from '../../src/auth/client/store.js';
import { type AuthorizationUserAgent, headlessUserAgent } from '../../src/auth/client/user-agent.js';
import { isAuthorizationError } from '../../src/auth/client/errors.js';
import { McpClient } from '../../src/client/client.js';
import { type Harness, type HarnessOptions, startHarness } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.restoreAllMocks();
});

/** A user agent that records what it was asked to open, then follows it headlessly. */
function spyingUserAgent(): AuthorizationUserAgent & { opened: URL[] } {
  const inner = headlessUserAgent();
  const opened: URL[] = [];
  return {
    opened,
    redirectUri: inner.redirectUri,
    authorize: (url, signal) => {
      opened.push(url);
      return inner.authorize(url, signal);
    },
  };
}

async function connectTo(
  options: HarnessOptions,
  extra: Partial<OAuthClientOptions> = {},
): Promise<{
  error: unknown;
  userAgent: ReturnType<typeof spyingUserAgent>;
  h: Harness;
  client?: McpClient;
}> {
  const h = await startHarness(options);
  harness = h;
  const userAgent = spyingUserAgent();
  const oauth = new OAuthClientProvider({
    serverUrl: h.mcpUrl,
    grant: { type: 'authorization_code', userAgent },
    store: new MemoryTokenStore(),
    ...extra,
  });
  try {
    const client = await McpClient.connect(h.mcpUrl, { oauth, timeoutMs: 10_000 });
    return { error: undefined, userAgent, h, client };
  } catch (error) {
    return { error, userAgent, h };
  }
}

describe('OAuth client: hostile deployments', () => {
  it('aborts when the protected-resource metadata names another origin', async () => {
    const { error, userAgent, h } = await connectTo({
      resourceMetadata: () => ({ resource: 'https://evil.example.com/mcp' }),
    });
    expect(isAuthorizationError(error, 'resource_mismatch')).toBe(true);
    expect(userAgent.opened).toEqual([]);
    expect(h.count('/.well-known/oauth-authorization-server')).toBe(0);
    expect(h.count('/token')).toBe(0);
  });

  it('refuses an authorization server that does not advertise PKCE S256', async () => {
    const { error, userAgent, h } = await connectTo({
      serverMetadata: () => ({ code_challenge_methods_supported: undefined }),
    });
    expect(isAuthorizationError(error, 'pkce_unsupported')).toBe(true);
    expect(userAgent.opened).toEqual([]);
    expect(h.count('/authorize') + h.count('/token')).toBe(0);

    await harness?.close();
    const plain = await connectTo({
      serverMetadata: () => ({ code_challenge_methods_supported: ['plain'] }),
    });
    expect(isAuthorizationError(plain.error, 'pkce_unsupported')).toBe(true);
  });

  it.each([
    ['a wrong iss', 'https://evil.example.com'],
    ['a missing iss where it is advertised', 'omit'],
    ['a normalized variant of the issuer (simple string comparison)', 'normalized'],
  ])('refuses %s before redeeming the code (RFC 9207)', async (_name, iss) => {
    const { error, h } = await connectTo({ iss });
    expect(isAuthorizationError(error, 'authorization_failed')).toBe(true);
    expect(h.count('/authorize')).toBe(1);
    expect(h.count('/token')).toBe(0);
  });

  it('stops after three authorization rounds when the server keeps answering 403', async () => {
    const { error, h } = await connectTo({
      gate: ({ token }) =>
        token
          ? { status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope", scope="admin"' }
          : { status: 401, wwwAuthenticate: 'Bearer scope="admin"' },
    });
    expect(isAuthorizationError(error, 'unauthorized')).toBe(true);
    expect(h.count('/authorize')).toBe(MAX_AUTHORIZATION_ROUNDS);
    expect(h.count('/token')).toBe(MAX_AUTHORIZATION_ROUNDS);
  });

  it.each([
    ['a javascript: URL', () => 'javascript:alert(document.cookie)'],
    ['shell metacharacters', (base: string) => `${base}/authorize$(touch /tmp/agentforge-pwned)`],
    ['a backtick command', (base: string) => `${base}/authorize\`id\``],
    ['a file: URL', () => 'file:///etc/passwd'],
    ['plain http off loopback', () => 'http://login.example.com/authorize'],
  ])('never opens an authorization_endpoint with %s', async (_name, endpoint) => {
    const { error, userAgent } = await connectTo({
      serverMetadata: (base) => ({ authorization_endpoint: endpoint(base) }),
    });
    expect(isAuthorizationError(error, 'unsafe_url')).toBe(true);
    expect(userAgent.opened).toEqual([]);
  });

  it.each([
    ['a link-local metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a private address', 'http://10.0.0.1/'],
    ['an IPv6 link-local address', 'http://[fe80::1]/'],
    ['an IPv4-mapped private address', 'http://[::ffff:10.0.0.1]/'],
  ])('does not fetch authorization-server metadata at %s', async (_name, issuer) => {
    const spy = vi.spyOn(globalThis, 'fetch');
    const { error } = await connectTo({ resourceMetadata: () => ({ authorization_servers: [issuer] }) });
    expect(isAuthorizationError(error, 'unsafe_url')).toBe(true);
    const contacted = spy.mock.calls.map(
      ([input]) => new URL(input instanceof Request ? input.url : input).host,
    );
    expect(contacted.some((host) => host === new URL(issuer).host)).toBe(false);
  });

  it('resolves host names and refuses one that points into a private range', async () => {
    const resolved: string[] = [];
    const { error } = await connectTo(
      { resourceMetadata: () => ({ authorization_servers: ['https://as.internal.test/'] }) },
      {
        resolve: async (host) => {
          resolved.push(host);
          return ['10.1.2.3'];
        },
      },
    );
    expect(resolved).toEqual(['as.internal.test']);
    expect(isAuthorizationError(error, 'unsafe_url')).toBe(true);
  });
});
