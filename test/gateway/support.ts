/** Gateways over real upstream processes, listening on 127.0.0.1, and clients connected to them. */
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { parseConfig } from '../../src/agent/config.js';
import { type BearerAuthOptions, bearerAuth } from '../../src/auth/server/bearer.js';
import { JwtVerifier } from '../../src/auth/server/jwt.js';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import type { ClientOptions } from '../../src/client/types.js';
import { type GatewayOptions, createGateway } from '../../src/gateway/gateway.js';
import { type GatewayListenOptions, type GatewayListening, listenGateway } from '../../src/gateway/http.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { LAB, ROOT } from '../agent/support.js';

export { LAB, ROOT };

export const lab = (label: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [LAB, label],
  ...extra,
});

export interface Running extends AsyncDisposable {
  readonly gateway: Gateway;
  readonly listening: GatewayListening;
  readonly url: string;
  connect(options?: ClientOptions, url?: string): Promise<McpClient>;
}

/** A gateway over `servers` (an mcpServers object), listening on a free port; closed with everything it opened. */
export async function startGateway(
  servers: Record<string, Record<string, unknown>>,
  options: Omit<GatewayOptions, 'config'> = {},
  listen: GatewayListenOptions = {},
): Promise<Running> {
  const config = parseConfig({ mcpServers: servers }, { source: 'gateway test mcp.json' });
  const gateway = await createGateway({ config, upstream: { retry: { backoffMs: 100 } }, ...options });
  const listening = await listenGateway(gateway, listen);
  const clients: McpClient[] = [];
  const close = async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await listening.close();
    await gateway.close();
  };
  return {
    gateway,
    listening,
    url: listening.url,
    async connect(clientOptions = {}, url = listening.url) {
      const client = await McpClient.connect(url, { eraCache: new EraCache(), ...clientOptions });
      clients.push(client);
      return client;
    },
    [Symbol.asyncDispose]: close,
  };
}

/** Polls `check` until it holds (a bounded wait for something asynchronous a user would also wait for). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

export function textOf(result: { content?: Array<{ type: string; text?: string }> }): string {
  return (result.content ?? [])
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join('');
}

/** A test authorization server's signing side: tokens for any subject, and the gateway guard that trusts them. */
export interface TestIssuer {
  /** An ES256 access token for `subject`, for `audience`, scope `mcp`, good for ten minutes. */
  token(subject: string, audience: string): Promise<string>;
  /** The downstream guard verifying those tokens for `resource`. */
  guard(resource: string, options?: Pick<BearerAuthOptions, 'exposeToken'>): ReturnType<typeof bearerAuth>;
}

export async function testIssuer(issuer = 'https://issuer.test'): Promise<TestIssuer> {
  const pair = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
  const verifier = new JwtVerifier({ jwks: { keys: [publicJwk] }, issuer });
  return {
    token: (subject, audience) =>
      new SignJWT({ scope: 'mcp' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(pair.privateKey),
    guard: (resource, options = {}) =>
      bearerAuth({ resource, authorizationServers: [issuer], verifier, ...options }),
  };
}
