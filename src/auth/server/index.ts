export type {
  HttpAuthGuard,
  HttpAuthOutcome,
  HttpAuthRequest,
  HttpAuthResponse,
} from '../../transports/http/server/auth.js';
export { type BearerAuth, type BearerAuthOptions, bearerAuth } from './bearer.js';
export { type Challenge, formatChallenge } from './challenge.js';
export {
  DpopNonces,
  type DpopOptions,
  DpopVerifier,
  InvalidDpopProofError,
  UseDpopNonceError,
} from './dpop.js';
export { IntrospectionVerifier, type IntrospectionVerifierOptions } from './introspection.js';
export { JwtVerifier, type JwtVerifierOptions } from './jwt.js';
export {
  type ProtectedResourceMetadata,
  type ProtectedResourceOptions,
  WELL_KNOWN_PROTECTED_RESOURCE,
  canonicalResource,
  metadataPaths,
  protectedResourceMetadata,
} from './metadata.js';
export {
  type AuthInfo,
  InvalidTokenError,
  type TokenContext,
  type TokenVerifier,
  VerifierUnavailableError,
} from './types.js';
