/**
 * 2026-07-28 basic/patterns/mrtr, Server Requirements: `requestState` is attacker-controlled input. Ours is an
 * HMAC-SHA256-sealed token bound to the method, the primitive's name, a digest of the request's arguments, the
 * authenticated principal and an expiry. The payload is parsed only after the MAC verifies, and every failure
 * looks the same from outside.
 */
import { createRequire } from 'node:module';
import { isRecord } from '../util/record.js';

type NodeCrypto = typeof import('node:crypto');
let nodeCrypto: NodeCrypto | undefined;

/**
 * node:crypto, loaded on the first seal or open rather than with the server: most requests never carry a
 * requestState, and the module is a measurable share of a stdio server's startup.
 */
function cryptoModule(): NodeCrypto {
  nodeCrypto ??= createRequire(import.meta.url)('node:crypto') as NodeCrypto;
  return nodeCrypto;
}

export interface RequestStateBinding {
  readonly method: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly principal: string | undefined;
}

export interface RequestStatePayload {
  /** Input rounds completed so far. */
  readonly round: number;
  /** Answers gathered in earlier rounds, by inputRequests key. */
  readonly responses: Record<string, unknown>;
}

export interface RequestStateOptions {
  /** HMAC key; default a random 32-byte key per process (state then dies with the process, by design). */
  key?: string | Uint8Array;
  /** How long a requestState stays valid (default 10 minutes). */
  ttlMs?: number;
  /** Largest token accepted (default 64 KiB). */
  maxBytes?: number;
}

const VERSION = 'v1';
const DEFAULT_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_BYTES = 64 * 1024;
const MAX_CANONICAL_DEPTH = 64;

export class RequestStateSealer {
  /** The given key, or a random one made on first use. */
  #key: Buffer | undefined;
  readonly #ttlMs: number;
  readonly #maxBytes: number;

  constructor(options: RequestStateOptions = {}) {
    const key = options.key;
    if (key !== undefined) {
      this.#key = Buffer.from(key);
      if (this.#key.length < 16) throw new RangeError('requestState key must be at least 16 bytes');
    }
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  seal(binding: RequestStateBinding, payload: RequestStatePayload, now = Date.now()): string {
    const body = Buffer.from(
      JSON.stringify({ r: payload.round, s: payload.responses, e: now + this.#ttlMs }),
      'utf8',
    ).toString('base64url');
    return `${VERSION}.${body}.${this.#mac(body, binding).toString('base64url')}`;
  }

  /** The payload, or undefined for anything tampered, expired, foreign, oversized or malformed. */
  open(token: string, binding: RequestStateBinding, now = Date.now()): RequestStatePayload | undefined {
    if (token.length > this.#maxBytes) return undefined;
    const [version, body, mac, rest] = token.split('.');
    if (version !== VERSION || body === undefined || mac === undefined || rest !== undefined)
      return undefined;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(body, binding);
    if (given.length !== expected.length || !cryptoModule().timingSafeEqual(given, expected))
      return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isRecord(parsed)) return undefined;
    const { r, s, e } = parsed;
    if (typeof e !== 'number' || e < now) return undefined;
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) return undefined;
    if (!isRecord(s)) return undefined;
    return { round: r, responses: s };
  }

  #mac(body: string, binding: RequestStateBinding): Buffer {
    this.#key ??= cryptoModule().randomBytes(32);
    const hmac = cryptoModule().createHmac('sha256', this.#key);
    // Length-prefixed fields: no two different bindings serialise to the same MAC input.
    for (const field of [
      VERSION,
      body,
      binding.method,
      binding.name,
      binding.principal ?? '',
      digest(binding.arguments),
    ]) {
      hmac.update(`${Buffer.byteLength(field)}:`);
      hmac.update(field);
    }
    return hmac.digest();
  }
}

/** A stable digest of a JSON value (object keys sorted), so a retry with the same arguments matches. */
export function digest(value: unknown): string {
  return cryptoModule().createHash('sha256').update(canonicalJson(value, 0)).digest('base64url');
}

function canonicalJson(value: unknown, depth: number): string {
  // Arrays pass on to their own branch below; only scalars are written as they are.
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (depth > MAX_CANONICAL_DEPTH) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  const keys = Object.keys(value).sort();
  const record = value as Record<string, unknown>;
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], depth + 1)}`).join(',')}}`;
}

const PRINCIPAL_PARTS = ['subject', 'sub', 'clientId', 'client_id'] as const;

/**
 * The authenticated principal an auth layer put in `extra.authInfo`, if any: subject and client, qualified by
 * the issuer (a `sub` is unique only within its issuer, so two authorization servers' "alice" differ). The one
 * definition every binding uses: requestState, HTTP sessions, `ctx.principal`.
 */
export function principalOf(authInfo: unknown): string | undefined {
  if (!isRecord(authInfo)) return undefined;
  const info = authInfo;
  const parts = PRINCIPAL_PARTS.map((key) => info[key]).filter((v) => typeof v === 'string');
  if (parts.length === 0) return undefined;
  const issuer = info.issuer ?? info.iss;
  if (typeof issuer === 'string') parts.unshift(issuer);
  return parts.join('\u0000');
}
