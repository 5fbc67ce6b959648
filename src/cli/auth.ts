/**
 * `agentforge auth login|logout|status <server> --config <mcp.json>`: manage the OAuth tokens stored for an
 * HTTP server of mcp.json. Login opens the system browser (or, with --no-browser, prints the URL) and receives
 * the redirect on a loopback listener. Tokens are never printed.
 */
import { parseArgs } from 'node:util';
import { type ServerConfig, loadConfig } from '../agent/config.js';
import { oauthProviderFor } from '../agent/oauth.js';
import type { OAuthClientProvider, OAuthStatus } from '../auth/client/provider.js';
import { FileTokenStore, type TokenStore } from '../auth/client/store.js';
import { LoopbackUserAgent } from '../auth/client/user-agent.js';
import { UsageError } from './errors.js';

export const AUTH_OPTIONS = {
  config: { type: 'string', short: 'c' },
  'no-browser': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const;

const USAGE =
  'usage: agentforge auth login|logout|status <server> --config <mcp.json> [--no-browser] [--json]';

/** Login needs `oauth` only for its settings: any HTTP server may be authorized with defaults. */
function withOAuth(server: ServerConfig): ServerConfig {
  return server.oauth ? server : { ...server, oauth: {} };
}

async function serverNamed(configPath: string | undefined, name: string): Promise<ServerConfig> {
  if (!configPath) throw new UsageError('--config <mcp.json> is required');
  const config = await loadConfig(configPath);
  const server = config.servers.find((entry) => entry.name === name);
  if (!server) throw new UsageError(`no server named "${name}" in ${config.source}`);
  if (server.target.kind !== 'http') throw new UsageError(`server "${name}" is not an HTTP server`);
  return withOAuth(server);
}

function describe(name: string, status: OAuthStatus | undefined): string {
  if (!status) return `${name}: not logged in\n`;
  const expires =
    status.expiresAt === undefined
      ? 'no expiry given'
      : `expires ${new Date(status.expiresAt).toISOString()}`;
  const scope = status.scope?.length ? status.scope.join(' ') : '(no scope)';
  return (
    `${name}: logged in at ${status.issuer} for ${status.resource}\n` +
    `  ${status.tokenType} token, ${expires}${status.refreshable ? ', refreshable' : ''}\n  scope: ${scope}\n`
  );
}

async function login(
  server: ServerConfig,
  store: TokenStore,
  printOnly: boolean,
): Promise<OAuthClientProvider> {
  const redirect = server.oauth?.redirectUri ? new URL(server.oauth.redirectUri) : undefined;
  const userAgent = await LoopbackUserAgent.start({
    ...(redirect ? { port: Number(redirect.port) } : {}),
    ...(printOnly
      ? {
          open: (url: URL) =>
            process.stderr.write(`Open this URL to authorize ${server.name}:\n  ${url.href}\n`),
        }
      : {}),
  });
  try {
    const provider = oauthProviderFor(server, { userAgent, store }) as OAuthClientProvider;
    await provider.authorize();
    return provider;
  } finally {
    await userAgent.close();
  }
}

export async function authCommand(argv: string[], store: TokenStore = new FileTokenStore()): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: AUTH_OPTIONS, allowPositionals: true });
  const [action, name] = positionals;
  if ((action !== 'login' && action !== 'logout' && action !== 'status') || !name)
    throw new UsageError(USAGE);
  const server = await serverNamed(values.config, name);
  if (action === 'login') {
    const provider = await login(server, store, values['no-browser']);
    process.stdout.write(describe(name, await provider.status()));
    return 0;
  }
  const provider = oauthProviderFor(server, { store }) as OAuthClientProvider;
  if (action === 'logout') {
    await provider.logout();
    process.stdout.write(`${name}: logged out\n`);
    return 0;
  }
  const status = await provider.status();
  if (values.json)
    process.stdout.write(`${JSON.stringify({ server: name, ...(status ?? { loggedIn: false }) })}\n`);
  else process.stdout.write(describe(name, status));
  return status ? 0 : 1;
}
