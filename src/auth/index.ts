/** agentforge/auth: the OAuth 2.1 client for protected MCP servers. */
export { assertPkceS256 } from './client/authorization-code.js';
export { type Challenge, readChallenge } from './client/challenge.js';
export {
  type Discovery,
  type ProtectedResourceMetadata,
  discover,
  discoverAuthorizationServer,
  discoverResourceMetadata,
} from './client/discovery.js';
export type { EnterpriseIdentityProvider } from './client/enterprise.js';
export { AuthorizationError, type AuthorizationErrorCode, isAuthorizationError } from './client/errors.js';
export { MAX_AUTHORIZATION_ROUNDS, challengeOf, oauthMiddleware } from './client/middleware.js';
export {
  type AddressRange,
  NetworkPolicy,
  type NetworkPolicyOptions,
  addressRange,
  assertOpenableUrl,
  guardedFetch,
} from './client/network.js';
export {
  type OAuthClientOptions,
  OAuthClientProvider,
  type OAuthGrant,
  type OAuthStatus,
} from './client/provider.js';
export type { ClientIdentity, TokenEndpointAuthMethod } from './client/registration.js';
export {
  FileTokenStore,
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenKey,
  type TokenStore,
  defaultTokenFile,
} from './client/store.js';
export {
  type AuthorizationUserAgent,
  LoopbackUserAgent,
  type LoopbackUserAgentOptions,
  browserCommand,
  headlessUserAgent,
  openInBrowser,
} from './client/user-agent.js';
export {
  authorizationServerMetadataUrls,
  canonicalResource,
  protectedResourceMetadataUrls,
} from './shared/well-known.js';
