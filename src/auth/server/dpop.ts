import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, errors, jwtVerify } from 'jose';
import { ExpiringCache } from './cache.js';

export interface DpopOptions {
  /** Accepted proof algorithms (RFC 9449 section 7.1 `algs`; default ES256, RS256, PS256, EdDSA). */
  algorithms?: readonly string[];
  /** How old (or how far in the future) a proof's `iat` may be, in seconds (default 60). */
  maxAgeSec?: number;
  /** `jti` values remembered against replay (default 10000; a proof older than maxAgeSec is refused anyway). */
  replayCacheSize?: number;
  /** Refuse tokens that are not DPoP-bound (RFC 9728 `dpop_bound_access_tokens_required`). Default false. */
  required?: boolean;
  /**
   * RFC 9449 section 9: proofs must carry a nonce this server issued (`DPoP-Nonce`), which limits how long a
   * stolen proof is worth anything. `true` rotates every 5 minutes (the previous nonce stays good one more).
   */
  nonce?: boolean | { rotateSec: number };
}

export const DEFAULT_DPOP_ALGORITHMS = ['ES256', 'RS256', 'PS256', 'EdDSA'];
const MAX_PROOF_LENGTH = 8 * 1024;

/** A DPoP proof that does not hold: 401 `DPoP error="invalid_dpop_proof"` (RFC 9449 section 7.1). */
export class InvalidDpopProofError extends Error {
  override readonly name: string = 'InvalidDpopProofError';
}

/** A good proof without the current nonce: 401 `error="use_dpop_nonce"` with a fresh `DPoP-Nonce`. */
export class UseDpopNonceError extends InvalidDpopProofError {
  override readonly name = 'UseDpopNonceError';
  readonly nonce: string;

  constructor(message: string, nonce: string) {
    super(message);
    this.nonce = nonce;
  }
}

/**
 * Stateless server nonces: the rotation window's number and its HMAC under a per-process key, so any nonce
 * from this window or the one before verifies without a store (and nothing else does).
 */
export class DpopNonces {
  readonly #key = randomBytes(32);
  readonly #rotateMs: number;

  constructor(rotateSec = 300) {
    this.#rotateMs = Math.max(1, rotateSec) * 1000;
  }

  current(now: number): string {
    return this.#forWindow(Math.floor(now / this.#rotateMs));
  }

  accepts(nonce: unknown, now: number): boolean {
    if (typeof nonce !== 'string' || nonce.length > 64) return false;
    const window = Math.floor(now / this.#rotateMs);
    return [window, window - 1].some((w) => {
      const expected = Buffer.from(this.#forWindow(w));
      const given = Buffer.from(nonce);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }

  #forWindow(window: number): string {
    const mac = createHmac('sha256', this.#key).update(String(window)).digest('base64url').slice(0, 32);
    return `${window.toString(36)}.${mac}`;
  }
}

export interface DpopRequest {
  /** The `DPoP` header, as received (two headers arrive joined by a comma and are refused). */
  readonly proof: string | undefined;
  readonly method: string;
  /** The URL the proof must name (`htu`): scheme, host and path, no query or fragment. */
  readonly url: string;
  readonly accessToken: string;
  /** The token's `cnf.jkt`: the thumbprint of the key the proof must be signed with. */
  readonly jkt: string;
}

/**
 * RFC 9449 section 4.3 and 7.1: checks of a DPoP proof presented with a DPoP-bound access token at a resource
 * server. Proof signature by its embedded public key, `typ` dpop+jwt, `htm`/`htu` equal to this request, `iat`
 * within the window, `ath` the hash of the token, a `jti` never seen, and the key's thumbprint equal to the
 * token's `cnf.jkt`.
 */
export class DpopVerifier {
  readonly algorithms: readonly string[];
  readonly #maxAgeSec: number;
  readonly #seen: ExpiringCache<true>;
  readonly #now: () => number;
  readonly #nonces: DpopNonces | undefined;

  constructor(options: DpopOptions = {}, now: () => number = Date.now) {
    this.algorithms = (options.algorithms ?? DEFAULT_DPOP_ALGORITHMS).filter((alg) => alg !== 'none');
    this.#maxAgeSec = options.maxAgeSec ?? 60;
    const nonce = options.nonce;
    this.#nonces = nonce ? new DpopNonces(nonce === true ? undefined : nonce.rotateSec) : undefined;
    this.#seen = new ExpiringCache(options.replayCacheSize ?? 10_000);
    this.#now = now;
  }

  async verify(request: DpopRequest): Promise<void> {
    const { proof } = request;
    if (proof === undefined) throw new InvalidDpopProofError('a DPoP proof is required');
    if (proof.length > MAX_PROOF_LENGTH || proof.includes(','))
      throw new InvalidDpopProofError('exactly one DPoP proof is required');
    const now = this.#now();
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: [...this.algorithms],
        requiredClaims: ['jti', 'htm', 'htu', 'iat', 'ath'],
        currentDate: new Date(now),
      });
    } catch (error) {
      throw new InvalidDpopProofError(
        error instanceof errors.JOSEAlgNotAllowed
          ? 'the DPoP proof uses a refused algorithm'
          : 'the DPoP proof is invalid',
        { cause: error },
      );
    }
    const { payload, protectedHeader } = verified;
    const { jti, htm, htu, iat, ath, nonce } = payload as Record<string, unknown>;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
      throw new InvalidDpopProofError('the DPoP proof has no valid jti');
    if (htm !== request.method) throw new InvalidDpopProofError('the DPoP proof is for another method');
    if (typeof htu !== 'string' || normalizeHtu(htu) !== normalizeHtu(request.url))
      throw new InvalidDpopProofError('the DPoP proof is for another URL');
    if (typeof iat !== 'number' || Math.abs(now / 1000 - iat) > this.#maxAgeSec)
      throw new InvalidDpopProofError('the DPoP proof is too old or from the future');
    if (ath !== createHash('sha256').update(request.accessToken).digest('base64url'))
      throw new InvalidDpopProofError('the DPoP proof is not for this access token');
    if (this.#nonces && !this.#nonces.accepts(nonce, now))
      throw new UseDpopNonceError('the DPoP proof needs the server nonce', this.#nonces.current(now));
    // `jwk` was checked by EmbeddedJWK (present, public); its thumbprint binds the proof to the token.
    const thumbprint = await calculateJwkThumbprint(
      protectedHeader.jwk as Parameters<typeof calculateJwkThumbprint>[0],
    );
    if (thumbprint !== request.jkt)
      throw new InvalidDpopProofError('the DPoP proof key is not the one the token is bound to');
    const replayKey = `${thumbprint}.${jti}`;
    if (this.#seen.get(replayKey, now)) throw new InvalidDpopProofError('the DPoP proof was already used');
    this.#seen.set(replayKey, true, (iat + this.#maxAgeSec) * 1000);
  }
}

/** RFC 9449 section 4.3 point 9: compared without query and fragment, after RFC 3986 normalisation. */
function normalizeHtu(value: string): string {
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return '';
  }
}
