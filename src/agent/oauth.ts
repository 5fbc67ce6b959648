/**
 * The OAuth client for a configured HTTP server (`oauth` in mcp.json). The host never opens a browser by itself:
 * it uses and refreshes stored tokens, and asks the user to run `agentforge auth login <server>` when a new
 * authorization is needed; the CLI passes its loopback browser agent for that.
 */
import { AuthorizationError } from '../auth/client/errors.js';
import { OAuthClientProvider } from '../auth/client/provider.js';
import type { TokenStore } from '../auth/client/store.js';
import type { AuthorizationUserAgent } from '../auth/client/user-agent.js';
import type { Logger } from '../util/logger.js';
import type { ServerConfig } from './config.js';

export interface ServerOAuthOptions {
  /** The browser step; default: refuse, naming the login command. */
  userAgent?: AuthorizationUserAgent;
  /** Default: the 0600 token file under the user's config directory. */
  store?: TokenStore;
  logger?: Logger;
}

function loginRequired(server: string, redirectUri: string): AuthorizationUserAgent {
  return {
    redirectUri,
    authorize: () =>
      Promise.reject(
        new AuthorizationError(
          'unauthorized',
          `server "${server}" needs authorization: run "agentforge auth login ${server}"`,
        ),
      ),
  };
}

/** Undefined for servers without `oauth` (and for stdio servers, which take no OAuth). */
export function oauthProviderFor(
  config: ServerConfig,
  options: ServerOAuthOptions = {},
): OAuthClientProvider | undefined {
  const { oauth, target } = config;
  if (!oauth || target.kind !== 'http') return undefined;
  const redirectUri = oauth.redirectUri ?? 'http://127.0.0.1/callback';
  return new OAuthClientProvider({
    serverUrl: target.url,
    grant: {
      type: 'authorization_code',
      userAgent: options.userAgent ?? loginRequired(config.name, redirectUri),
    },
    clientName: 'agentforge',
    ...(oauth.clientId ? { clientId: oauth.clientId } : {}),
    ...(oauth.clientSecret ? { clientSecret: oauth.clientSecret } : {}),
    ...(oauth.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: oauth.tokenEndpointAuthMethod } : {}),
    ...(oauth.clientMetadataUrl ? { clientMetadataUrl: oauth.clientMetadataUrl } : {}),
    ...(oauth.scopes ? { scopes: oauth.scopes } : {}),
    ...(oauth.allowPrivateNetwork ? { allowRanges: ['private'] } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
