import { McpServer } from '../../src/server/index.js';
import { modern, post } from '../server/http/helpers.js';
import {
  type BearerAuthOptions,
  type TokenVerifier,
  bearerAuth,
  JwtVerifier,
} from '../../src/auth/server/index.js';
import type { Listening } from '../../src/server/http.js';
import {
  type ResourceServerConfig,
  type TestAuthorizationServer,
  startAuthorizationServer,
} from '../support/oidc-provider.js';

export const SCOPES = ['mcp:tools', 'mcp:admin'] as const;

/** A protected McpServer: `whoami` echoes ctx.auth and ctx.principal, `purge` needs mcp:admin. */
export function protectedServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', { description: 'the caller' }, async (_args, ctx) => ({
    content: [{ type: 'text', text: 'ok' }],
    structuredContent: {
      subject: ctx.auth?.subject ?? null,
      clientId: ctx.auth?.clientId ?? null,
      scopes: [...(ctx.auth?.scopes ?? [])],
      expiresAt: ctx.auth?.expiresAt ?? null,
      hasToken: ctx.auth?.token !== undefined,
      principal: ctx.principal ?? null,
      // The guard consumed the credentials: handlers do not see them among the headers.
      sawCredentials: ctx.extra?.headers?.has('authorization') || ctx.extra?.headers?.has('dpop') || false,
      sawAccept: ctx.extra?.headers?.has('accept') ?? false,
    },
  }));
  // Elicits once: on 2026-07-28 its first call answers input_required with a requestState bound to the caller.
  server.registerTool('greet', { description: 'asks a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      { key: 'name' },
    );
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name)}` }] };
  });
  server.registerTool('purge', { description: 'admin only', requiredScopes: ['mcp:admin'] }, async () => ({
    content: [{ type: 'text', text: 'purged' }],
  }));
  return server;
}

export interface Protected extends AsyncDisposable {
  readonly as: TestAuthorizationServer;
  readonly server: McpServer;
  readonly http: Listening;
  readonly url: string;
  /** A client_credentials token for this server (scope default: mcp:tools). */
  token(scope?: string): Promise<string>;
}

/**
 * A real authorization server and our McpServer protected by it over real HTTP. The guard is made once the
 * server is bound (its URL is the resource); then the authorization server learns the resource.
 */
export async function startProtected(
  options: {
    guard?: Partial<Omit<BearerAuthOptions, 'resource' | 'authorizationServers'>>;
    verifier?: (as: TestAuthorizationServer) => TokenVerifier;
    resource?: Partial<ResourceServerConfig>;
    legacySse?: false;
    clients?: readonly Record<string, unknown>[];
  } = {},
): Promise<Protected> {
  const as = await startAuthorizationServer(options.clients ? { clients: options.clients } : {});
  const server = protectedServer();
  const http = await server.listen({
    keepAliveMs: 0,
    ...(options.legacySse === false ? { legacySse: false as const } : {}),
    auth: (url) =>
      bearerAuth({
        resource: url,
        authorizationServers: [as.issuer],
        scopesSupported: [...SCOPES],
        verifier: options.verifier?.(as) ?? new JwtVerifier({ jwks: as.jwksUri, issuer: as.issuer }),
        ...options.guard,
      }),
  });
  as.addResource(http.url, { scopes: [...SCOPES], ...options.resource });
  const close = async () => {
    await http.close();
    await server.close();
    await as.close();
  };
  return {
    as,
    server,
    http,
    url: http.url,
    token: async (scope = 'mcp:tools') =>
      (await as.clientCredentials({ resource: http.url, scope })).access_token,
    [Symbol.asyncDispose]: close,
  };
}

/** A 2026-07-28 request over real HTTP, with `authorization` when a token (or a whole header value) is given. */
export function call(
  url: string,
  method: string,
  params: Record<string, unknown>,
  authorization?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const request = modern(method, params);
  const auth: Record<string, string> = authorization === undefined ? {} : { authorization };
  return post(url, request.body, { ...request.headers, ...auth, ...headers });
}

export const bearer = (token: string) => `Bearer ${token}`;

/** The protected-resource metadata URL of an endpoint URL (RFC 9728 path insertion). */
export function metadataUrlOf(url: string): string {
  const endpoint = new URL(url);
  return `${endpoint.origin}/.well-known/oauth-protected-resource${endpoint.pathname}`;
}
