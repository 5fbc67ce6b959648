/**
 * DPoP (RFC 9449; MCP extension SEP-1932): one key pair per client, proofs at the token endpoint through
 * oauth4webapi's DPoP handle (which also tracks the authorization server's nonce), and a fresh proof with `jti`,
 * `ath` and the resource server's latest nonce for every HTTP request to the MCP server, signed with jose.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type JWK, SignJWT, exportJWK } from 'jose';
import * as oauth from 'oauth4webapi';

/** The algorithm of our proof key; used only when the authorization server lists it (RFC 9449 §5.1). */
export const DPOP_ALGORITHM = 'ES256';

export function supportsDpop(as: oauth.AuthorizationServer): boolean {
  const algorithms = as.dpop_signing_alg_values_supported;
  return Array.isArray(algorithms) && algorithms.includes(DPOP_ALGORITHM);
}

export class DpopKey {
  readonly handle: oauth.DPoPHandle;
  readonly #keyPair: CryptoKeyPair;
  #publicJwk: JWK | undefined;
  /** RFC 9449 §9: the nonce the resource server asked for last, per origin. */
  readonly #resourceNonces = new Map<string, string>();

  private constructor(keyPair: CryptoKeyPair) {
    this.#keyPair = keyPair;
    this.handle = oauth.DPoP({}, keyPair);
  }

  static async generate(): Promise<DpopKey> {
    return new DpopKey(await oauth.generateKeyPair(DPOP_ALGORITHM));
  }

  setResourceNonce(origin: string, nonce: string): void {
    this.#resourceNonces.set(origin, nonce);
  }

  /** RFC 9449 §4.2, §7.1: a proof for one request to the resource server, bound to the access token. */
  async proofFor(method: string, url: URL, accessToken: string): Promise<string> {
    this.#publicJwk ??= await exportJWK(this.#keyPair.publicKey);
    const nonce = this.#resourceNonces.get(url.origin);
    // §4.2: htu is the target URI without query and fragment.
    const htu = `${url.origin}${url.pathname}`;
    const ath = createHash('sha256').update(accessToken, 'ascii').digest('base64url');
    return new SignJWT({ htm: method, htu, ath, ...(nonce === undefined ? {} : { nonce }) })
      .setProtectedHeader({ alg: DPOP_ALGORITHM, typ: 'dpop+jwt', jwk: this.#publicJwk })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(this.#keyPair.privateKey);
  }
}
