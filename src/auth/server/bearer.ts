import { principalOf } from '../../server/request-state.js';
import type {
  HttpAuthGuard,
  HttpAuthOutcome,
  HttpAuthRequest,
  HttpAuthResponse,
} from '../../transports/http/server/auth.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { type Challenge, challengeResponse } from './challenge.js';
import { type DpopOptions, DpopVerifier, InvalidDpopProofError, UseDpopNonceError } from './dpop.js';
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

type Scheme = 'Bearer' | 'DPoP';
type Credential = { readonly scheme: Scheme; readonly token: string };

/** RFC 6750 section 2.1: `b64token`, kept to a sane size. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]{1,16384}=*$/;
const METADATA_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version',
};

/** The Authorization header: absent (or another scheme), a Bearer/DPoP credential, or `'malformed'`. */
function credentialOf(header: string | undefined): Credential | undefined | 'malformed' {
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

function jktOf(info: AuthInfo | undefined): string | undefined {
  const cnf = info?.claims?.cnf as { jkt?: unknown } | undefined;
  return typeof cnf?.jkt === 'string' ? cnf.jkt : undefined;
}

const refused = (response: HttpAuthResponse): HttpAuthOutcome => ({ ok: false, response });

const UNAVAILABLE: HttpAuthResponse = {
  status: 503,
  headers: { 'retry-after': '5', 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify({
    error: 'temporarily_unavailable',
    error_description: 'the access token cannot be verified right now',
  }),
};

/**
 * OAuth 2.1 resource-server protection for the MCP HTTP endpoint (2026-07-28 basic/authorization): pass it as
 * `auth` to `listen`, `createNodeHandler` or `createFetchHandler`. Every request needs a valid access token
 * issued for `resource`; the RFC 9728 metadata is served at its well-known paths; tools that declare
 * `requiredScopes` answer 403 insufficient_scope naming them, so clients can step up.
 */
export function bearerAuth(options: BearerAuthOptions): BearerAuth {
  return new BearerGuard(options);
}

class BearerGuard implements BearerAuth {
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  readonly metadata: ProtectedResourceMetadata;
  readonly #options: BearerAuthOptions;
  readonly #resourceUrl: URL;
  readonly #paths: { insertion: string; root: string };
  readonly #metadataJson: string;
  readonly #required: readonly string[];
  readonly #dpop: DpopVerifier | undefined;
  readonly #dpopRequired: boolean;
  readonly #logger: Logger;

  constructor(options: BearerAuthOptions) {
    this.#options = options;
    this.resource = options.resource;
    this.#resourceUrl = canonicalResource(options.resource);
    this.#paths = metadataPaths(this.#resourceUrl);
    this.resourceMetadataUrl =
      options.resourceMetadataUrl ?? new URL(this.#paths.insertion, this.#resourceUrl).href;
    this.#dpop = options.dpop === false ? undefined : new DpopVerifier(options.dpop, options.now);
    this.#dpopRequired = options.dpop !== false && options.dpop?.required === true;
    const dpop = this.#dpop && { algorithms: this.#dpop.algorithms, required: this.#dpopRequired };
    this.metadata = protectedResourceMetadata(options, dpop);
    this.#metadataJson = JSON.stringify(this.metadata);
    this.#required = options.requiredScopes ?? [];
    this.#logger = options.logger ?? silentLogger;
  }

  serve(request: HttpAuthRequest): HttpAuthResponse | undefined {
    if (request.path !== this.#paths.insertion && request.path !== this.#paths.root) return undefined;
    if (request.method === 'OPTIONS') return { status: 204, headers: METADATA_CORS };
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return { status: 405, headers: { ...METADATA_CORS, allow: 'GET, HEAD, OPTIONS' } };
    return {
      status: 200,
      headers: { ...METADATA_CORS, 'content-type': 'application/json', 'cache-control': 'max-age=300' },
      body: this.#metadataJson,
    };
  }

  async authenticate(request: HttpAuthRequest): Promise<HttpAuthOutcome> {
    const credential = credentialOf(request.header('authorization'));
    if (credential === undefined) return this.#unauthenticated();
    if (credential === 'malformed') {
      const description = 'the Authorization header is malformed';
      return refused(this.#refuse(400, { scheme: 'Bearer', error: 'invalid_request', description }));
    }
    let info: AuthInfo;
    try {
      const { method, path, header } = request;
      const context = { resource: this.resource, method, path, header };
      info = await this.#options.verifier.verify(credential.token, context);
    } catch (error) {
      if (error instanceof InvalidTokenError)
        return this.#unauthenticated(error.description, credential.scheme);
      const reason = error instanceof VerifierUnavailableError ? error.message : 'token verification failed';
      this.#logger.warn(
        `access token not verified: ${reason}`,
        error instanceof Error ? error.cause : undefined,
      );
      return refused(UNAVAILABLE);
    }
    // A plain Bearer token of an unbound grant (the common case) has no binding to check: no extra await.
    if (credential.scheme === 'DPoP' || this.#dpopRequired || jktOf(info) !== undefined) {
      const binding = await this.#checkBinding(request, credential, info);
      if (binding) return binding;
    }
    if (!hasScopes(info, this.#required))
      return refused(this.#insufficient(credential.scheme, this.#required));
    const authInfo = this.#options.exposeToken ? { ...info, token: credential.token } : info;
    return { ok: true, authInfo, principal: principalOf(authInfo) };
  }

  authorize(authInfo: unknown, scopes: readonly string[]): HttpAuthResponse | undefined {
    const needed = [...new Set([...this.#required, ...scopes])];
    const info = authInfo as AuthInfo | undefined;
    if (info && Array.isArray(info.scopes) && hasScopes(info, needed)) return undefined;
    return this.#insufficient(jktOf(info) === undefined ? 'Bearer' : 'DPoP', needed);
  }

  /** RFC 9449 section 7.1: a bound token needs the DPoP scheme and a good proof; an unbound one, Bearer. */
  async #checkBinding(
    request: HttpAuthRequest,
    credential: Credential,
    info: AuthInfo,
  ): Promise<HttpAuthOutcome | undefined> {
    const jkt = jktOf(info);
    if (jkt === undefined) {
      const unbound = credential.scheme === 'DPoP' || this.#dpopRequired;
      return unbound ? this.#unauthenticated('the access token is not DPoP-bound') : undefined;
    }
    const dpop = this.#dpop;
    if (!dpop) return this.#unauthenticated('DPoP-bound access tokens are not accepted here');
    if (credential.scheme !== 'DPoP')
      return this.#unauthenticated('a DPoP-bound access token needs the DPoP scheme', 'DPoP');
    try {
      await dpop.verify({
        proof: request.header('dpop'),
        method: request.method,
        // htu names the public URL, which the resource's origin is (the request may come through a proxy).
        url: new URL(request.path, this.#resourceUrl).href,
        accessToken: credential.token,
        jkt,
      });
      return undefined;
    } catch (error) {
      if (!(error instanceof InvalidDpopProofError)) throw error;
      const nonce = error instanceof UseDpopNonceError ? error.nonce : undefined;
      const code = nonce === undefined ? 'invalid_dpop_proof' : 'use_dpop_nonce';
      const challenge = { scheme: 'DPoP', error: code, algorithms: dpop.algorithms } as const;
      const response = this.#refuse(401, { ...challenge, description: error.message });
      // RFC 9449 section 9: the nonce to use comes in the DPoP-Nonce header of the refusal.
      if (nonce === undefined) return refused(response);
      return refused({ ...response, headers: { ...response.headers, 'dpop-nonce': nonce } });
    }
  }

  /**
   * 401: no token (no error code, RFC 6750 section 3.1) or an invalid one (`invalid_token`), challenged in the
   * scheme the client used (DPoP when this server requires it).
   */
  #unauthenticated(description?: string, used?: Scheme): HttpAuthOutcome {
    const dpop = this.#dpop && (used === 'DPoP' || this.#dpopRequired) ? this.#dpop : undefined;
    return refused(
      this.#refuse(401, {
        scheme: dpop ? 'DPoP' : 'Bearer',
        scopes: this.#required,
        ...(dpop ? { algorithms: dpop.algorithms } : {}),
        ...(description === undefined ? {} : { error: 'invalid_token', description }),
      }),
    );
  }

  #insufficient(scheme: Scheme, needed: readonly string[]): HttpAuthResponse {
    const description = 'the access token lacks a required scope';
    return this.#refuse(403, { scheme, error: 'insufficient_scope', description, scopes: needed });
  }

  #refuse(status: 400 | 401 | 403, challenge: Omit<Challenge, 'resourceMetadata'>): HttpAuthResponse {
    if (challenge.description) this.#logger.debug(`access refused (${status}): ${challenge.description}`);
    return challengeResponse(status, { ...challenge, resourceMetadata: this.resourceMetadataUrl });
  }
}
