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
import type { OneTimeStateStore } from './one-time-state.js';

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
  /** Set on states sealed for one-time use: claimed in the OneTimeStateStore when opened. */
  readonly nonce?: string;
  /** Epoch milliseconds after which the state no longer opens. */
  readonly expiresAt?: number;
}

/** One HMAC key of a key ring; the id travels in the token so any instance finds the key that sealed it. */
export interface RequestStateKey {
  /** 1 to 64 characters of [A-Za-z0-9_-]. */
  readonly id: string;
  /** At least 16 bytes. */
  readonly secret: string | Uint8Array;
}

/**
 * Keys shared by every instance through configuration: states are sealed with `current` and open with it or
 * any of `previous`, so a rotation (new current, old one moved to previous) keeps states minted before it valid
 * until they expire.
 */
export interface RequestStateKeyRing {
  readonly current: RequestStateKey;
  readonly previous?: readonly RequestStateKey[];
}

export interface RequestStateOptions {
  /** HMAC key; default a random 32-byte key per process (state then dies with the process, by design). */
  key?: string | Uint8Array;
  /** A key ring with key ids and rotation (takes the place of `key`); give every instance the same ring. */
  keys?: RequestStateKeyRing;
  /**
   * Makes every state one-time: a second presentation is refused (default none: a state may be presented again
   * until it expires). `RedisOneTimeStateStore` from agentforge/redis shares the claims between instances.
   */
  oneTime?: OneTimeStateStore;
  /** How long a requestState stays valid (default 10 minutes). */
  ttlMs?: number;
  /** Largest token accepted (default 64 KiB). */
  maxBytes?: number;
}

const VERSION = 'v1';
/** Tokens naming their key: `v2.<key id>.<body>.<mac>`. */
const KEYED_VERSION = 'v2';
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_BYTES = 64 * 1024;
const MAX_CANONICAL_DEPTH = 64;

export class RequestStateSealer {
  /**
   * The sealing key's id ('' for a lone key, whose tokens are v1) and its bytes; without a configured key, a
   * random one made on the first seal (until then no token can verify).
   */
  #current: readonly [string, Buffer] | undefined;
  readonly #keys = new Map<string, Buffer>();
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #oneTime: OneTimeStateStore | undefined;

  constructor(options: RequestStateOptions = {}) {
    const ring = options.keys;
    if (ring) {
      for (const { id, secret } of [ring.current, ...(ring.previous ?? [])]) {
        if (!KEY_ID.test(id)) throw new RangeError('requestState key ids are 1 to 64 of [A-Za-z0-9_-]');
        this.#keys.set(id, keyBytes(secret));
      }
      this.#current = [ring.current.id, keyBytes(ring.current.secret)];
    } else if (options.key !== undefined) {
      this.#current = ['', keyBytes(options.key)];
      this.#keys.set('', this.#current[1]);
    }
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#oneTime = options.oneTime;
  }

  /** True when opened states must be claimed (`claim`) before they are used. */
  get oneTime(): boolean {
    return this.#oneTime !== undefined;
  }

  seal(binding: RequestStateBinding, payload: RequestStatePayload, now = Date.now()): string {
    const fields: Record<string, unknown> = { r: payload.round, s: payload.responses, e: now + this.#ttlMs };
    if (this.#oneTime) fields.n = cryptoModule().randomBytes(16).toString('base64url');
    const body = Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
    const [id, key] = this.#current ?? this.#randomKey();
    const mac = this.#mac(key, id, body, binding).toString('base64url');
    return id === '' ? `${VERSION}.${body}.${mac}` : `${KEYED_VERSION}.${id}.${body}.${mac}`;
  }

  /** The payload, or undefined for anything tampered, expired, foreign, oversized or malformed. */
  open(token: string, binding: RequestStateBinding, now = Date.now()): RequestStatePayload | undefined {
    if (token.length > this.#maxBytes) return undefined;
    const parts = token.split('.');
    const keyed = parts[0] === KEYED_VERSION && parts.length === 4;
    if (!keyed && (parts[0] !== VERSION || parts.length !== 3)) return undefined;
    const [id, body, mac] = keyed ? parts.slice(1) : ['', ...parts.slice(1)];
    const key = this.#keys.get(id as string);
    if (key === undefined || body === undefined || mac === undefined) return undefined;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(key, id as string, body, binding);
    if (given.length !== expected.length || !cryptoModule().timingSafeEqual(given, expected))
      return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isRecord(parsed)) return undefined;
    const { r, s, e, n } = parsed;
    if (typeof e !== 'number' || e < now) return undefined;
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) return undefined;
    if (!isRecord(s)) return undefined;
    // A one-time store refuses a state sealed without a nonce (minted before one-time use was turned on).
    if (this.#oneTime && typeof n !== 'string') return undefined;
    const payload = { round: r, responses: s, expiresAt: e };
    return typeof n === 'string' ? { ...payload, nonce: n } : payload;
  }

  /** Claims an opened one-time state: false when it was presented before (here or on another instance). */
  claim(payload: RequestStatePayload): Promise<boolean> {
    if (!this.#oneTime || payload.nonce === undefined) return Promise.resolve(true);
    return this.#oneTime.claim(payload.nonce, payload.expiresAt ?? Date.now() + this.#ttlMs);
  }

  #randomKey(): readonly [string, Buffer] {
    const current = ['', cryptoModule().randomBytes(32)] as const;
    this.#current = current;
    this.#keys.set('', current[1]);
    return current;
  }

  #mac(key: Buffer, id: string, body: string, binding: RequestStateBinding): Buffer {
    const hmac = cryptoModule().createHmac('sha256', key);
    // Length-prefixed fields: no two different bindings serialise to the same MAC input.
    for (const field of [
      id === '' ? VERSION : `${KEYED_VERSION}:${id}`,
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

function keyBytes(secret: string | Uint8Array): Buffer {
  const bytes = Buffer.from(secret);
  if (bytes.length < 16) throw new RangeError('requestState key must be at least 16 bytes');
  return bytes;
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
