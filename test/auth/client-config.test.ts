// biome-ignore-all lint/suspicious/noTemplateCurlyInString: mcp.json uses ${VAR} interpolation, tested verbatim.
/** `oauth` on an mcp.json server: parsed, interpolated, checked, and turned into the server's OAuth client. */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/agent/config.js';
import { oauthProviderFor } from '../../src/agent/oauth.js';
import { MemoryTokenStore } from '../../src/auth/client/store.js';

const parse = (server: Record<string, unknown>, env: Record<string, string> = {}) =>
  parseConfig({ mcpServers: { remote: server } }, { env }).servers[0];

describe('mcp.json oauth', () => {
  it('reads the client settings, with ${VAR} secrets', () => {
    const server = parse(
      {
        url: 'https://mcp.example/mcp',
        oauth: {
          clientId: 'agentforge-cli',
          clientSecret: '${SECRET}',
          scopes: ['files:read'],
          redirectUri: 'http://127.0.0.1:8765/callback',
        },
      },
      { SECRET: 's3cret' },
    );
    expect(server?.oauth).toEqual({
      clientId: 'agentforge-cli',
      clientSecret: 's3cret',
      scopes: ['files:read'],
      redirectUri: 'http://127.0.0.1:8765/callback',
    });
    const provider = oauthProviderFor(server!, { store: new MemoryTokenStore() });
    expect(provider?.serverUrl.href).toBe('https://mcp.example/mcp');
  });

  it('refuses unknown keys, non-loopback redirects and oauth on stdio servers', () => {
    expect(() => parse({ url: 'https://mcp.example/mcp', oauth: { clientID: 'x' } })).toThrow(ConfigError);
    expect(() =>
      parse({ url: 'https://mcp.example/mcp', oauth: { redirectUri: 'https://evil.example/cb' } }),
    ).toThrow(/loopback/);
    expect(() => parse({ command: 'node', oauth: {} })).toThrow(/only an HTTP server/);
    expect(oauthProviderFor(parse({ url: 'https://mcp.example/mcp' })!)).toBeUndefined();
  });
});
