/** Pure pieces of the OAuth client: metadata locations, challenge parsing, address ranges, URL checks. */
import { describe, expect, it } from 'vitest';
import { readChallenge } from '../../src/auth/client/challenge.js';
import { NetworkPolicy, addressRange, assertOpenableUrl } from '../../src/auth/client/network.js';
import { browserCommand } from '../../src/auth/client/user-agent.js';
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  protectedResourceMetadataUrls,
} from '../../src/auth/shared/well-known.js';

const hrefs = (urls: URL[]) => urls.map((url) => url.href);

describe('well-known locations', () => {
  it('tries OAuth path-insertion, OIDC path-insertion, then OIDC path-append for an issuer with a path', () => {
    expect(hrefs(authorizationServerMetadataUrls('https://as.example/tenant1'))).toEqual([
      'https://as.example/.well-known/oauth-authorization-server/tenant1',
      'https://as.example/.well-known/openid-configuration/tenant1',
      'https://as.example/tenant1/.well-known/openid-configuration',
    ]);
    expect(hrefs(authorizationServerMetadataUrls('https://as.example'))).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ]);
  });

  it('looks for protected-resource metadata path-inserted, then at the root', () => {
    expect(hrefs(protectedResourceMetadataUrls('https://mcp.example/v1/mcp?x=1'))).toEqual([
      'https://mcp.example/.well-known/oauth-protected-resource/v1/mcp',
      'https://mcp.example/.well-known/oauth-protected-resource',
    ]);
    expect(canonicalResource('HTTPS://MCP.Example/mcp/#frag')).toBe('https://mcp.example/mcp');
  });
});

describe('WWW-Authenticate challenges', () => {
  it('reads resource_metadata, scope and error', async () => {
    const challenge = await readChallenge(
      'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"',
    );
    expect(challenge).toEqual({
      scheme: 'bearer',
      error: 'insufficient_scope',
      scope: ['files:read', 'files:write'],
      resourceMetadata: 'https://mcp.example/.well-known/oauth-protected-resource',
    });
    expect((await readChallenge('DPoP error="use_dpop_nonce"')).error).toBe('use_dpop_nonce');
    expect((await readChallenge(undefined)).scheme).toBeUndefined();
    expect((await readChallenge('x'.repeat(10_000))).scheme).toBeUndefined();
  });
});

describe('network policy', () => {
  it('classifies addresses', () => {
    expect(addressRange('169.254.169.254')).toBe('link-local');
    expect(addressRange('10.0.0.1')).toBe('private');
    expect(addressRange('172.31.255.1')).toBe('private');
    expect(addressRange('192.168.1.1')).toBe('private');
    expect(addressRange('fd00::1')).toBe('private');
    expect(addressRange('fe80::1')).toBe('link-local');
    expect(addressRange('::ffff:127.0.0.1')).toBe('loopback');
    expect(addressRange('8.8.8.8')).toBe('public');
  });

  it('allows loopback only for a server on loopback, and never link-local unless the user says so', async () => {
    const remote = new NetworkPolicy(new URL('https://mcp.example/mcp'), {
      resolve: async () => ['93.184.216.34'],
    });
    await expect(remote.check(new URL('http://127.0.0.1:9/token'))).rejects.toThrow(/loopback/);
    await expect(remote.check(new URL('http://as.example/token'))).rejects.toThrow(/https is required/);
    await remote.check(new URL('https://as.example/token'));
    const local = new NetworkPolicy(new URL('http://localhost:3000/mcp'));
    await local.check(new URL('http://127.0.0.1:9/token'));
    await expect(local.check(new URL('https://169.254.169.254/'))).rejects.toThrow(/link-local/);
    const allowed = new NetworkPolicy(new URL('https://mcp.example/mcp'), { allowRanges: ['private'] });
    await allowed.check(new URL('https://10.0.0.1/token'));
  });

  it('opens only https (or loopback http) URLs without shell metacharacters', () => {
    expect(assertOpenableUrl('https://as.example/authorize?a=1&b=2').href).toBe(
      'https://as.example/authorize?a=1&b=2',
    );
    expect(assertOpenableUrl('http://127.0.0.1:8080/authorize').protocol).toBe('http:');
    for (const bad of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'http://as.example/authorize',
      'https://as.example/$(id)',
      'https://as.example/a;rm -rf',
      'https://user:pass@as.example/',
      'https://as.example/`id`',
    ])
      expect(() => assertOpenableUrl(bad), bad).toThrow();
  });

  it('opens the browser with a program and an argument, never a shell line', () => {
    expect(browserCommand('linux')).toEqual(['xdg-open', []]);
    expect(browserCommand('darwin')).toEqual(['open', []]);
    expect(browserCommand('win32')).toEqual(['rundll32', ['url.dll,FileProtocolHandler']]);
  });
});
