/**
 * The OAuth client for the conformance suite's `auth/*` scenarios: which grant and which credentials each
 * scenario expects, from MCP_CONFORMANCE_CONTEXT (the suite's ClientConformanceContext). Authorization is
 * headless: the suite's authorization server approves at once, and the redirect is read from its Location.
 */
import { OAuthClientProvider, type OAuthClientOptions } from '../auth/client/provider.js';
import { MemoryTokenStore } from '../auth/client/store.js';
import { headlessUserAgent } from '../auth/client/user-agent.js';
import type { Logger } from '../util/logger.js';

/** The client metadata document URL the suite's CIMD scenarios expect as client_id (it is never fetched). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

function text(context: Record<string, unknown>, name: string): string {
  const value = context[name];
  if (typeof value !== 'string') throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${name}`);
  return value;
}

function grantOptions(
  scenario: string,
  context: Record<string, unknown>,
): Omit<OAuthClientOptions, 'serverUrl'> {
  switch (scenario) {
    case 'auth/client-credentials-jwt':
      return {
        grant: { type: 'client_credentials' },
        clientId: text(context, 'client_id'),
        privateKey: text(context, 'private_key_pem'),
        signingAlgorithm: typeof context.signing_algorithm === 'string' ? context.signing_algorithm : 'ES256',
        tokenEndpointAuthMethod: 'private_key_jwt',
      };
    case 'auth/client-credentials-basic':
      return {
        grant: { type: 'client_credentials' },
        clientId: text(context, 'client_id'),
        clientSecret: text(context, 'client_secret'),
        tokenEndpointAuthMethod: 'client_secret_basic',
      };
    case 'auth/enterprise-managed-authorization':
      return {
        grant: {
          type: 'enterprise',
          idp: {
            tokenEndpoint: text(context, 'idp_token_endpoint'),
            issuer: text(context, 'idp_issuer'),
            clientId: text(context, 'idp_client_id'),
            idToken: () => text(context, 'idp_id_token'),
          },
        },
        clientId: text(context, 'client_id'),
        clientSecret: text(context, 'client_secret'),
        tokenEndpointAuthMethod: 'client_secret_basic',
      };
    case 'auth/wif-jwt-bearer':
      return {
        grant: { type: 'jwt_bearer', assertion: () => text(context, 'valid_jwt') },
        clientId: text(context, 'client_id'),
        tokenEndpointAuthMethod: 'none',
      };
    case 'auth/pre-registration':
      return {
        grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
        clientId: text(context, 'client_id'),
        clientSecret: text(context, 'client_secret'),
      };
    default:
      return {
        grant: { type: 'authorization_code', userAgent: headlessUserAgent() },
        clientMetadataUrl: CLIENT_METADATA_URL,
        clientName: 'agentforge-conformance-client',
      };
  }
}

export function conformanceOAuth(
  serverUrl: string,
  scenario: string,
  context: Record<string, unknown>,
  logger: Logger,
): OAuthClientProvider {
  return new OAuthClientProvider({
    serverUrl,
    store: new MemoryTokenStore(),
    logger,
    ...grantOptions(scenario, context),
  });
}
