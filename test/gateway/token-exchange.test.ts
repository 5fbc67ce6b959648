// biome-ignore-all lint/suspicious/noTemplateCurlyInString: mcp.json uses ${VAR} interpolation, tested verbatim.
/**
 * Upstream credentials by RFC 8693 token exchange, configured in mcp.json (`tokenExchange` on a server) and
 * served by `agentforge gateway` in its own process. The authorization server is oidc-provider on 127.0.0.1,
 * with a token-exchange grant registered through its `registerGrantType`: it verifies the subject token it
 * issued (for the gateway) and issues the same subject a token for the upstream. The upstream is an agentforge
 * server with bearerAuth that records every Authorization header it receives.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/agent/config.js';
import { JwtVerifier, bearerAuth } from '../../src/auth/server/index.js';
import { readUrl } from '../../src/cli/demo.js';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { listenGateway } from '../../src/gateway/http.js';
import { createNodeHandler } from '../../src/server/http.js';
import { McpServer } from '../../src/server/index.js';
import { MAIN, cleanEnv } from '../cli/support.js';
import { type TestAuthorizationServer, startAuthorizationServer } from '../support/oidc-provider.js';
import { textOf } from './support.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
/** The gateway's canonical resource URL: downstream tokens are issued for it. */
const GATEWAY_RESOURCE = 'https://gateway.test/mcp';
const secret = (name: string) => `${name}-${crypto.randomUUID()}`;
const GATEWAY_CLIENT = { clientId: 'gateway-exchanger', clientSecret: secret('gw') };
const callers = {
  alice: { clientId: 'alice-app', clientSecret: secret('alice') },
  bob: { clientId: 'bob-app', clientSecret: secret('bob') },
  mallory: { clientId: 'mallory-app', clientSecret: secret('mallory') },
  carol: { clientId: 'carol-app', clientSecret: secret('carol') },
};
/** Carol's upstream tokens live 2 s: the gateway renews them. */
const ttlOf = (subject: string) => (subject === callers.carol.clientId ? 2 : 600);

let as: TestAuthorizationServer;
let upstream: { http: Server; url: string; authorizations: string[]; close(): Promise<void> };
let gateway: ChildProcess;
let gatewayUrl: string;
let dir: string;
/** What the token endpoint saw of each exchange: the subject and the subject token. */
const exchanges: { subject: string; subjectToken: string; resource: string | undefined }[] = [];

/**
 * RFC 8693 at oidc-provider: the subject token must be a JWT this server issued for the gateway; the new token
 * keeps its subject and is for the requested resource. Mallory's exchanges are refused (invalid_grant).
 */
function registerTokenExchange(
  provider: Parameters<NonNullable<Parameters<typeof startAuthorizationServer>[0]['extend']>>[0],
) {
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx) => {
      const { subject_token, subject_token_type, resource } = ctx.oidc.params;
      if (subject_token_type !== ACCESS_TOKEN || !subject_token)
        throw new errors.InvalidRequest('subject_token must be an access token');
      const subject = await jwtVerify(subject_token, createRemoteJWKSet(new URL(as.jwksUri)), {
        issuer: as.issuer,
        audience: GATEWAY_RESOURCE,
      }).then(
        ({ payload }) => String(payload.sub),
        () => {
          throw new errors.InvalidGrant('subject_token is not valid');
        },
      );
      exchanges.push({ subject, subjectToken: subject_token, resource });
      if (subject === callers.mallory.clientId)
        throw new errors.InvalidGrant('exchange not allowed for this subject');
      if (resource !== upstream.url) throw new errors.InvalidTarget('unknown resource');
      const token = new ctx.oidc.provider.AccessToken({
        accountId: subject,
        client: ctx.oidc.client,
        gty: 'token-exchange',
        scope: 'files:read',
      });
      token.resourceServer = new ctx.oidc.provider.ResourceServer(resource, {
        scope: 'files:read',
        audience: resource,
        accessTokenTTL: ttlOf(subject),
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      });
      ctx.body = {
        access_token: await token.save(),
        issued_token_type: ACCESS_TOKEN,
        token_type: 'Bearer',
        expires_in: token.expiration,
        scope: token.scope,
      };
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'audience', 'scope'],
  );
}

/** The upstream: its own tokens only (aud = its URL), and a record of every Authorization header it got. */
async function startUpstream(): Promise<typeof upstream> {
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  server.registerTool('whoami', { description: 'whose token this call carried' }, (_args, ctx) => ({
    content: [{ type: 'text', text: ctx.auth?.subject ?? 'nobody' }],
  }));
  const authorizations: string[] = [];
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const handler = createNodeHandler(server, {
    auth: bearerAuth({
      resource: url,
      authorizationServers: [as.issuer],
      verifier: new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer, audience: [url] }),
    }),
  });
  http.on('request', (request, response) => {
    if (request.headers.authorization) authorizations.push(request.headers.authorization);
    handler(request, response);
  });
  const close = async () => {
    await handler.close();
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  };
  return { http, url, authorizations, close };
}

const client = (credentials: { clientId: string; clientSecret: string }, scope?: string) =>
  ({
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    grant_types: [scope ?? 'client_credentials'],
    response_types: [],
    redirect_uris: [],
  }) as Record<string, unknown>;

const downstreamToken = async (who: keyof typeof callers) =>
  (await as.clientCredentials({ resource: GATEWAY_RESOURCE, scope: 'mcp:tools', client: callers[who] }))
    .access_token;

async function connect(token: string): Promise<McpClient> {
  return McpClient.connect(gatewayUrl, {
    eraCache: new EraCache(),
    headers: { authorization: `Bearer ${token}` },
  });
}

beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: { [GATEWAY_RESOURCE]: { scopes: ['mcp:tools'] } },
    clients: [
      client(callers.alice),
      client(callers.bob),
      client(callers.mallory),
      client(callers.carol),
      client(GATEWAY_CLIENT, TOKEN_EXCHANGE),
    ],
    extend: registerTokenExchange,
  });
  upstream = await startUpstream();
  // The gateway's own token lists the upstream's tools on the shared connection.
  as.addResource(upstream.url, { scopes: ['files:read'] });
  const listing = (await as.clientCredentials({ resource: upstream.url, scope: 'files:read' })).access_token;
  dir = await mkdtemp(join(tmpdir(), 'agentforge-tx-'));
  const config = join(dir, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        files: {
          url: upstream.url,
          headers: { authorization: 'Bearer ${LISTING_TOKEN}' },
          tokenExchange: {
            tokenEndpoint: as.tokenEndpoint,
            clientId: GATEWAY_CLIENT.clientId,
            clientSecret: '${EXCHANGE_SECRET}',
            scope: 'files:read',
          },
        },
      },
      gateway: {
        auth: { issuer: as.issuer, jwksUrl: as.jwksUri, resource: GATEWAY_RESOURCE },
        required: ['files'],
      },
    }),
  );
  gateway = spawn(process.execPath, [MAIN, 'gateway', '--config', config, '--port', '0'], {
    env: cleanEnv({
      AGENTFORGE_LOG_DIR: dir,
      LISTING_TOKEN: listing,
      EXCHANGE_SECRET: GATEWAY_CLIENT.clientSecret,
    }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  gateway.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  gatewayUrl = await readUrl(gateway, 'agentforge gateway', 30_000).catch((error: Error) => {
    throw new Error(`${error.message}: ${stderr}`);
  });
}, 60_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  await upstream?.close();
  await as?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tokenExchange in mcp.json', () => {
  it('reaches the upstream with each principal its own exchanged token, exchanged once while it is good', async () => {
    const [aliceToken, bobToken] = [await downstreamToken('alice'), await downstreamToken('bob')];
    const alice = await connect(aliceToken);
    const bob = await connect(bobToken);
    try {
      expect((await alice.listTools()).map((tool) => tool.name)).toContain('files__whoami');
      for (let i = 0; i < 3; i++) {
        expect(textOf(await alice.callTool({ name: 'files__whoami', arguments: {} }))).toBe('alice-app');
        expect(textOf(await bob.callTool({ name: 'files__whoami', arguments: {} }))).toBe('bob-app');
      }
      // Once per principal: the cached token (and its connection) serves the following calls.
      expect(exchanges.filter((e) => e.subject === 'alice-app')).toHaveLength(1);
      expect(exchanges.filter((e) => e.subject === 'bob-app')).toHaveLength(1);
      // The subject token was the caller's own, and the resource the upstream's URL (the default).
      expect(exchanges.find((e) => e.subject === 'alice-app')).toMatchObject({
        subjectToken: aliceToken,
        resource: upstream.url,
      });
      // A new downstream token of the same principal still uses the token it has.
      const again = await connect(await downstreamToken('alice'));
      expect(textOf(await again.callTool({ name: 'files__whoami', arguments: {} }))).toBe('alice-app');
      await again.close();
      expect(exchanges.filter((e) => e.subject === 'alice-app')).toHaveLength(1);
    } finally {
      await alice.close();
      await bob.close();
    }
  }, 60_000);

  it('refuses the call of a principal whose exchange is refused; the others go on', async () => {
    const mallory = await connect(await downstreamToken('mallory'));
    const alice = await connect(await downstreamToken('alice'));
    try {
      const refused = await mallory
        .callTool({ name: 'files__whoami', arguments: {} })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RpcError);
      expect((refused as RpcError).message).toMatch(
        /^upstream files: token exchange refused by http:\/\/127\.0\.0\.1:\d+\/token \(invalid_grant: grant request is invalid\)$/,
      );
      // Refused each time (not cached), never served on the shared connection or with anyone's token.
      await expect(mallory.callTool({ name: 'files__whoami', arguments: {} })).rejects.toThrow(
        /invalid_grant/,
      );
      expect(exchanges.filter((e) => e.subject === 'mallory-app')).toHaveLength(2);
      expect(textOf(await alice.callTool({ name: 'files__whoami', arguments: {} }))).toBe('alice-app');
    } finally {
      await mallory.close();
      await alice.close();
    }
  }, 60_000);

  it('exchanges again once the token is about to expire, on a new connection', async () => {
    const carol = await connect(await downstreamToken('carol'));
    try {
      expect(textOf(await carol.callTool({ name: 'files__whoami', arguments: {} }))).toBe('carol-app');
      expect(exchanges.filter((e) => e.subject === 'carol-app')).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect(textOf(await carol.callTool({ name: 'files__whoami', arguments: {} }))).toBe('carol-app');
      expect(exchanges.filter((e) => e.subject === 'carol-app')).toHaveLength(2);
      const carolTokens = new Set(
        upstream.authorizations.filter((h) => decodeJwt(h.slice(7)).sub === 'carol-app'),
      );
      expect(carolTokens.size).toBe(2);
    } finally {
      await carol.close();
    }
  }, 60_000);

  it('never lets a downstream token reach the upstream', () => {
    expect(upstream.authorizations.length).toBeGreaterThan(0);
    const downstream = new Set(exchanges.map((e) => e.subjectToken));
    for (const header of upstream.authorizations) {
      const token = header.replace(/^Bearer /, '');
      expect(downstream.has(token)).toBe(false);
      // Every token the upstream got was issued for it.
      expect(decodeJwt(token).aud).toBe(upstream.url);
    }
    const subjects = new Set(upstream.authorizations.map((h) => decodeJwt(h.slice(7)).sub));
    expect([...subjects].sort()).toEqual(['alice-app', 'bob-app', 'carol-app', 'mcp-machine']);
  });
});

describe('the subject token seam', () => {
  it('keeps the token a guard exposes out of what handlers and hooks see, and uses it for the exchange', async () => {
    const seen: unknown[] = [];
    const config = parseConfig({
      mcpServers: {
        files: {
          url: upstream.url,
          headers: {
            authorization: `Bearer ${(await as.clientCredentials({ resource: upstream.url })).access_token}`,
          },
          tokenExchange: {
            tokenEndpoint: as.tokenEndpoint,
            clientId: GATEWAY_CLIENT.clientId,
            clientSecret: GATEWAY_CLIENT.clientSecret,
          },
        },
      },
    });
    const inProcess = await createGateway({
      config,
      aroundRequest: (request, handle) => {
        seen.push(request.extra?.authInfo);
        return handle();
      },
    });
    const listening = await listenGateway(inProcess, {
      auth: bearerAuth({
        resource: GATEWAY_RESOURCE,
        authorizationServers: [as.issuer],
        verifier: new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer, audience: [GATEWAY_RESOURCE] }),
        exposeToken: true,
      }),
    });
    const before = exchanges.length;
    const bob = await McpClient.connect(listening.url, {
      eraCache: new EraCache(),
      headers: { authorization: `Bearer ${await downstreamToken('bob')}` },
    });
    try {
      // A gateway of its own: its first call for Bob exchanges Bob's token.
      expect(textOf(await bob.callTool({ name: 'files__whoami', arguments: {} }))).toBe('bob-app');
      expect(exchanges.slice(before).map((e) => e.subject)).toEqual(['bob-app']);
      expect(seen.length).toBeGreaterThan(0);
      for (const authInfo of seen) expect(authInfo).toMatchObject({ subject: 'bob-app' });
      expect(seen.some((authInfo) => 'token' in (authInfo as object))).toBe(false);
    } finally {
      await bob.close();
      await listening.close();
      await inProcess.close();
    }
  }, 60_000);
});

describe('a reload that gives a server tokenExchange', () => {
  it('makes the server per-principal from the next call, and a reload without it makes it shared again', async () => {
    const machineToken = (await as.clientCredentials({ resource: upstream.url })).access_token;
    const shared = { url: upstream.url, headers: { authorization: `Bearer ${machineToken}` } };
    const exchange = {
      tokenEndpoint: as.tokenEndpoint,
      clientId: GATEWAY_CLIENT.clientId,
      clientSecret: GATEWAY_CLIENT.clientSecret,
    };
    const inProcess = await createGateway({ config: parseConfig({ mcpServers: { files: shared } }) });
    const listening = await listenGateway(inProcess, {
      auth: bearerAuth({
        resource: GATEWAY_RESOURCE,
        authorizationServers: [as.issuer],
        verifier: new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer, audience: [GATEWAY_RESOURCE] }),
        exposeToken: true,
      }),
    });
    const bob = await McpClient.connect(listening.url, {
      eraCache: new EraCache(),
      headers: { authorization: `Bearer ${await downstreamToken('bob')}` },
    });
    const whoami = async () => textOf(await bob.callTool({ name: 'files__whoami', arguments: {} }));
    try {
      expect(await whoami()).toBe('mcp-machine');
      await inProcess.reload(parseConfig({ mcpServers: { files: { ...shared, tokenExchange: exchange } } }));
      expect(await whoami()).toBe('bob-app');
      await inProcess.reload(parseConfig({ mcpServers: { files: shared } }));
      expect(await whoami()).toBe('mcp-machine');
    } finally {
      await bob.close();
      await listening.close();
      await inProcess.close();
    }
  }, 60_000);
});
