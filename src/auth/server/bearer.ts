import type {
  HttpAuthGuard,
  HttpAuthOutcome,
  HttpAuthRequest,
  HttpAuthResponse,
} from '../../transports/http/server/auth.js';
import { principalOf } from '../../server/request-state.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { type Challenge, challengeResponse } from './challenge.js';
import { type DpopOptions, DpopVerifier, InvalidDpopProofError } from './dpop.js';
import {
  type ProtectedResourceMetadata,
  type ProtectedResourceOptions,
  canonicalResource,
  metadataPaths,
  protectedResourceMetadata,
} from './metadata.js';
import { type AuthInfo, InvalidTokenError, type TokenVerifier, VerifierUnavailableError } from './types.js';

export interface BearerAuthOptions extends ProtectedResourceOptions {
  verifier: TokenVerifier;
  /** Where clients find the metadata (WWW-Authenticate `resource_metadata`); default the RFC 9728 path-insertion URL. */
  resourceMetadataUrl?: string;
  /** Scopes every request needs; also named in the 401 challenge so a client asks for them up front. */
  requiredScopes?: readonly string[];
  /** DPoP-bound tokens (RFC 9449): accepted and checked by default; `false` refuses them. */
  dpop?: DpopOptions | false;
  /** Puts the raw token in `ctx.auth.token` (default false: a handler must not pass it to upstream APIs). */
  exposeToken?: boolean;
  logger?: Logger;
  /** The clock, in ms since the epoch (DPoP `iat` window); tokens are checked with the verifier's own clock. */
  now?: () => number;
}

/** The guard, plus what an application may want to show or log. */
export interface BearerAuth extends HttpAuthGuard {
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  readonly metadata: ProtectedResourceMetadata;
}

type Presented = { scheme: 'Bearer' | 'DPoP'; token: string };

/** RFC 6750 section 2.1: `b64token`, kept to a sane size. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]{1,16384}=*$/;
const METADATA_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version',
};

/** The Authorization header: absent, a well-formed Bearer/DPoP credential, or malformed (`'malformed'`). */
function presented(header: string | undefined): Presented | undefined | 'malformed' {
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  if (space === -1) return 'malformed';
  const scheme = header.slice(0, space).toLowerCase();
  const token = header.slice(space + 1).trim();
  if (scheme !== 'bearer' && scheme !== 'dpop') return undefined;
  if (!TOKEN68.test(token)) return 'malformed';
  return { scheme: scheme === 'dpop' ? 'DPoP' : 'Bearer', token };
}

function hasScopes(info: AuthInfo, needed: readonly string[]): boolean {
  return needed.every((scope) => info.scopes.includes(scope));
}

/**
 * OAuth 2.1 resource-server protection for the MCP HTTP endpoint (2026-07-28 basic/authorization): pass it as
 * `auth` to `listen`, `createNodeHandler` or `createFetchHandler`. Every request needs a valid access token
 * issued for `resource`; the RFC 9728 metadata is served at its well-known paths; tools that declare
 * `requiredScopes` answer 403 insufficient_scope naming them, so clients can step up.
 */
export function bearerAuth(options: BearerAuthOptions): BearerAuth {
  const resourceUrl = canonicalResource(options.resource);
  const paths = metadataPaths(resourceUrl);
  const metadataUrl = options.resourceMetadataUrl ?? new URL(paths.insertion, resourceUrl).href;
  const now = options.now ?? Date.now;
  const dpop = options.dpop === false ? undefined : new DpopVerifier(options.dpop, now);
  const dpopRequired = options.dpop !== false && options.dpop?.required === true;
  const metadata = protectedResourceMetadata(
    options,
    dpop ? { algorithms: dpop.algorithms, required: dpopRequired } : undefined,
  );
  const metadataJson = JSON.stringify(metadata);
  const required = options.requiredScopes ?? [];
  const logger = options.logger ?? silentLogger;

  const refuse = (
    status: 400 | 401 | 403,
    challenge: Omit<Challenge, 'resourceMetadata'>,
  ): HttpAuthResponse => {
    if (challenge.description) logger.debug(`access refused (${status}): ${challenge.description}`);
    return challengeResponse(status, { ...challenge, resourceMetadata: metadataUrl });
  };
  const unauthenticated = (description?: string): HttpAuthOutcome => ({
    ok: false,
    response: refuse(401, {
      scheme: dpopRequired ? 'DPoP' : 'Bearer',
      scopes: required,
      ...(dpopRequired && dpop ? { algorithms: dpop.algorithms } : {}),
      ...(description === undefined ? {} : { error: 'invalid_token', description }),
    }),
  });

  /** RFC 9449 section 7.1: a bound token needs the DPoP scheme and a good proof; an unbound one, Bearer. */
  async function checkBinding(
    request: HttpAuthRequest,
    credential: Presented,
    info: AuthInfo,
  ): Promise<HttpAuthOutcome | undefined> {
    const cnf = info.claims.cnf as { jkt?: unknown } | undefined;
    const jkt = typeof cnf?.jkt === 'string' ? cnf.jkt : undefined;
    if (jkt === undefined) {
      if (credential.scheme === 'DPoP' || dpopRequired)
        return unauthenticated('the access token is not DPoP-bound');
      return undefined;
    }
    if (!dpop) return unauthenticated('DPoP-bound access tokens are not accepted here');
    if (credential.scheme !== 'DPoP')
      return unauthenticated('a DPoP-bound access token needs the DPoP scheme');
    try {
      await dpop.verify({
        proof: request.header('dpop'),
        method: request.method,
        url: new URL(request.path, resourceUrl).href,
        accessToken: credential.token,
        jkt,
      });
    } catch (error) {
      if (!(error instanceof InvalidDpopProofError)) throw error;
      return {
        ok: false,
        response: refuse(401, {
          scheme: 'DPoP',
          error: 'invalid_dpop_proof',
          description: error.message,
          algorithms: dpop.algorithms,
        }),
      };
    }
    return undefined;
  }

  async function authenticate(request: HttpAuthRequest): Promise<HttpAuthOutcome> {
    const credential = presented(request.header('authorization'));
    if (credential === undefined) return unauthenticated();
    if (credential === 'malformed') {
      return {
        ok: false,
        response: refuse(400, {
          scheme: 'Bearer',
          error: 'invalid_request',
          description: 'the Authorization header is malformed',
        }),
      };
    }
    let info: AuthInfo;
    try {
      const { method, path, header } = request;
      info = await options.verifier.verify(credential.token, {
        resource: options.resource,
        method,
        path,
        header,
      });
    } catch (error) {
      if (error instanceof InvalidTokenError) return unauthenticated(error.description);
      const reason = error instanceof VerifierUnavailableError ? error.message : 'token verification failed';
      logger.warn(`access token not verified: ${reason}`, error instanceof Error ? error.cause : undefined);
      return { ok: false, response: unavailable() };
    }
    const binding = await checkBinding(request, credential, info);
    if (binding) return binding;
    if (!hasScopes(info, required)) return { ok: false, response: insufficient(credential.scheme, required) };
    const authInfo = options.exposeToken ? { ...info, token: credential.token } : info;
    return { ok: true, authInfo, principal: principalOf(authInfo) };
  }

  const insufficient = (scheme: 'Bearer' | 'DPoP', needed: readonly string[]): HttpAuthResponse =>
    refuse(403, {
      scheme,
      error: 'insufficient_scope',
      description: 'the access token lacks a required scope',
      scopes: needed,
    });

  function serve(request: HttpAuthRequest): HttpAuthResponse | undefined {
    if (request.path !== paths.insertion && request.path !== paths.root) return undefined;
    if (request.method === 'OPTIONS') return { status: 204, headers: METADATA_CORS };
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return { status: 405, headers: { ...METADATA_CORS, allow: 'GET, HEAD, OPTIONS' } };
    return {
      status: 200,
      headers: { ...METADATA_CORS, 'content-type': 'application/json', 'cache-control': 'max-age=300' },
      body: metadataJson,
    };
  }

  function authorize(authInfo: unknown, scopes: readonly string[]): HttpAuthResponse | undefined {
    const needed = [...new Set([...required, ...scopes])];
    const info = authInfo as AuthInfo | undefined;
    if (info && Array.isArray(info.scopes) && hasScopes(info, needed)) return undefined;
    const bound = typeof (info?.claims?.cnf as { jkt?: unknown } | undefined)?.jkt === 'string';
    return insufficient(bound ? 'DPoP' : 'Bearer', needed);
  }

  return {
    resource: options.resource,
    resourceMetadataUrl: metadataUrl,
    metadata,
    serve,
    authenticate,
    authorize,
  };
}

function unavailable(): HttpAuthResponse {
  return {
    status: 503,
    headers: { 'retry-after': '5', 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({
      error: 'temporarily_unavailable',
      error_description: 'the access token cannot be verified right now',
    }),
  };
}
