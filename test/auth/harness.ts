/**
 * A small protected MCP deployment on 127.0.0.1 for the OAuth client tests: one node:http server that is the
 * authorization server (metadata, registration, authorize, token) and the resource server (protected-resource
 * metadata, and our own MCP server behind a bearer check). Every knob a hostile case needs is an option, and
 * every request is recorded.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '../../src/server/index.js';
import { createNodeHandler } from '../../src/server/http.js';

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly form: URLSearchParams;
}

/** The resource server's verdict on one MCP request: undefined lets it through. */
export type Gate = (request: {
  token: string | undefined;
  scheme: string | undefined;
  mcpMethod: string | undefined;
  headers: IncomingMessage['headers'];
  scopes: readonly string[];
}) => { status: number; wwwAuthenticate: string; headers?: Record<string, string> } | undefined;

export interface HarnessOptions {
  /** Overrides of the protected-resource metadata (`resource`, `authorization_servers`, ...). */
  resourceMetadata?: (base: string) => Record<string, unknown>;
  /** Overrides of the authorization-server metadata (`undefined` values delete a field). */
  serverMetadata?: (base: string) => Record<string, unknown>;
  /** The `iss` in the authorization response: 'correct' (default), 'omit', 'normalized' (issuer + '/'), or a value. */
  iss?: string;
  /** Issue a refresh token with each access token. */
  refreshTokens?: boolean;
  /** Custom gate; the default requires a known token and the scopes in `requiredScopes` per MCP method. */
  gate?: Gate;
  requiredScopes?: Record<string, readonly string[]>;
  /** Advertise DPoP (ES256) and issue DPoP-bound tokens to requests that carry a proof. */
  dpop?: boolean;
}

export interface Harness {
  readonly base: string;
  readonly mcpUrl: string;
  readonly requests: Recorded[];
  /** Tokens the resource server accepts, with their scopes. */
  readonly tokens: Map<string, readonly string[]>;
  count(path: string): number;
  close(): Promise<void>;
}

function tokenOf(header: string | undefined): { scheme: string | undefined; token: string | undefined } {
  if (!header) return { scheme: undefined, token: undefined };
  const space = header.indexOf(' ');
  return { scheme: header.slice(0, space).toLowerCase(), token: header.slice(space + 1) };
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  if (request.method !== 'POST' || request.url?.startsWith('/mcp')) return new URLSearchParams();
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return request.headers['content-type']?.includes('json')
    ? new URLSearchParams(Object.entries(JSON.parse(text || '{}')).map(([k, v]) => [k, JSON.stringify(v)]))
    : new URLSearchParams(text);
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function buildMcpServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '0.1.0' });
  server.registerTool('echo', { inputSchema: { type: 'object' } }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  return server;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const requests: Recorded[] = [];
  const tokens = new Map<string, readonly string[]>();
  const mcp = createNodeHandler(buildMcpServer(), { path: '/mcp' });
  let base = '';
  let issued = 0;
  let lastScope = '';
  const gate: Gate =
    options.gate ??
    (({ token, mcpMethod, scopes }) => {
      const challenge = `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
      if (!token || !tokens.has(token)) return { status: 401, wwwAuthenticate: challenge };
      const needed = options.requiredScopes?.[mcpMethod ?? ''] ?? [];
      const missing = needed.filter((scope) => !scopes.includes(scope));
      if (missing.length > 0)
        return {
          status: 403,
          wwwAuthenticate: `${challenge}, error="insufficient_scope", scope="${missing.join(' ')}"`,
        };
      return undefined;
    });

  const routes: Record<
    string,
    (request: IncomingMessage, response: ServerResponse, form: URLSearchParams) => void
  > = {
    '/.well-known/oauth-protected-resource/mcp': (_q, response) =>
      json(response, 200, {
        resource: `${base}/mcp`,
        authorization_servers: [base],
        ...options.resourceMetadata?.(base),
      }),
    '/.well-known/oauth-authorization-server': (_q, response) => {
      const metadata: Record<string, unknown> = {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: ['none'],
        ...(options.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
        ...options.serverMetadata?.(base),
      };
      for (const [key, value] of Object.entries(metadata)) if (value === undefined) delete metadata[key];
      json(response, 200, metadata);
    },
    '/register': (_q, response) => json(response, 201, { client_id: 'registered-client' }),
    '/authorize': (request, response) => {
      const query = new URL(request.url ?? '/', base).searchParams;
      lastScope = query.get('scope') ?? '';
      const redirect = new URL(query.get('redirect_uri') ?? 'http://localhost:3000/callback');
      redirect.searchParams.set('code', `code-${++issued}`);
      redirect.searchParams.set('state', query.get('state') ?? '');
      const iss = options.iss ?? 'correct';
      const value = iss === 'correct' ? base : iss === 'normalized' ? `${base}/` : iss;
      if (iss !== 'omit') redirect.searchParams.set('iss', value);
      response.writeHead(302, { location: redirect.href }).end();
    },
    '/token': (request, response, form) => {
      const grant = form.get('grant_type');
      const scope =
        grant === 'refresh_token' ? [...(tokens.values().next().value ?? [])].join(' ') : lastScope;
      const token = `access-${++issued}`;
      tokens.set(token, scope.split(' ').filter(Boolean));
      json(response, 200, {
        access_token: token,
        token_type: options.dpop && request.headers.dpop ? 'DPoP' : 'Bearer',
        expires_in: 3600,
        ...(scope ? { scope } : {}),
        ...(options.refreshTokens ? { refresh_token: `refresh-${issued}` } : {}),
      });
    },
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    const form = await readForm(request);
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      form,
    });
    if (url.pathname === '/mcp') {
      const { scheme, token } = tokenOf(request.headers.authorization);
      const mcpMethod = request.headers['mcp-method'] as string | undefined;
      const verdict = gate({
        token,
        scheme,
        mcpMethod,
        headers: request.headers,
        scopes: tokens.get(token ?? '') ?? [],
      });
      if (verdict) {
        json(
          response,
          verdict.status,
          { error: 'denied' },
          { 'www-authenticate': verdict.wwwAuthenticate, ...verdict.headers },
        );
        return;
      }
      return mcp(request, response);
    }
    const route = routes[url.pathname];
    if (route) return route(request, response, form);
    json(response, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    mcpUrl: `${base}/mcp`,
    requests,
    tokens,
    count: (path) => requests.filter((request) => request.path === path).length,
    async close() {
      await mcp.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
