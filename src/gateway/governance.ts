/**
 * Who may do what through the gateway: per-principal tool authorization (globs over the gateway's tool names,
 * as the host's allow/deny use), token-bucket rate limits per principal and per tool, and the audit record of
 * each forwarded request.
 */
import { RpcError } from '../jsonrpc/errors.js';
import { GlobSet } from '../agent/glob.js';
import type { AuthInfo } from '../server/types.js';
import type { RateLimitStore } from './shared-state.js';

/** A rule: the principals it is about (globs over subject, client id or the full principal) and their tools. */
export interface PolicyRule {
  readonly principals: readonly string[];
  /** Globs over the gateway's tool names (`server__tool`); empty `allow` means every tool. `deny` wins. */
  readonly tools?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
}

/** Who a request comes from, as policies see it; `anonymous` when the endpoint has no auth. */
export interface Caller {
  /** The principal (issuer, subject, client), or undefined when unauthenticated. */
  readonly principal: string | undefined;
  readonly auth: AuthInfo | undefined;
}

interface CompiledRule {
  readonly principals: GlobSet;
  readonly allow: GlobSet;
  readonly deny: GlobSet;
}

/**
 * A tool is visible and callable for a caller when some rule matching the caller allows it and no rule matching
 * the caller denies it. Without rules every caller may use every tool; with rules, a caller no rule names may
 * use none.
 */
export class ToolPolicy {
  readonly #rules: readonly CompiledRule[];
  readonly #decisions = new Map<string, boolean>();

  constructor(rules: readonly PolicyRule[] = []) {
    this.#rules = rules.map((rule) => ({
      principals: new GlobSet(rule.principals),
      allow: new GlobSet(rule.tools?.allow ?? []),
      deny: new GlobSet(rule.tools?.deny ?? []),
    }));
  }

  get empty(): boolean {
    return this.#rules.length === 0;
  }

  allows(caller: Caller, tool: string): boolean {
    if (this.#rules.length === 0) return true;
    const key = `${caller.principal ?? ''}\u0000${tool}`;
    const known = this.#decisions.get(key);
    if (known !== undefined) return known;
    const names = namesOf(caller);
    const matching = this.#rules.filter((rule) => names.some((name) => rule.principals.matches(name)));
    const allowed =
      matching.some((rule) => rule.allow.empty || rule.allow.matches(tool)) &&
      !matching.some((rule) => rule.deny.matches(tool));
    // Bounded: a flood of distinct principals cannot grow it without limit.
    if (this.#decisions.size >= 10_000) this.#decisions.clear();
    this.#decisions.set(key, allowed);
    return allowed;
  }
}

/** The names a rule's `principals` globs are matched against: subject, client id, and the principal itself. */
function namesOf(caller: Caller): string[] {
  if (caller.principal === undefined) return ['anonymous'];
  const names = [caller.principal];
  if (caller.auth?.subject !== undefined) names.push(caller.auth.subject);
  if (caller.auth?.clientId !== undefined) names.push(caller.auth.clientId);
  return names;
}

/** A token bucket: `capacity` requests at once, refilled at `refillPerSecond`. */
export interface RateLimit {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

export interface RateLimits {
  /** Each principal's own bucket, across all tools. */
  readonly principal?: RateLimit;
  /** Per tool (globs over the gateway's tool names), one bucket per principal and tool. */
  readonly tools?: Readonly<Record<string, RateLimit>>;
}

/** JSON-RPC error code of a refused request: the server's implementation-defined range (-32000 to -32099). */
export const RATE_LIMITED = -32029;

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 100_000;

export class RateLimiter {
  readonly #principal: RateLimit | undefined;
  readonly #tools: ReadonlyArray<{ readonly glob: GlobSet; readonly limit: RateLimit; readonly key: string }>;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;
  readonly #store: RateLimitStore | undefined;

  /** With a `store`, the buckets are shared (several gateway instances); without, they are this process's. */
  constructor(limits: RateLimits = {}, now: () => number = () => performance.now(), store?: RateLimitStore) {
    this.#store = store;
    this.#principal = limits.principal;
    this.#tools = Object.entries(limits.tools ?? {}).map(([glob, limit]) => ({
      glob: new GlobSet([glob]),
      limit,
      key: glob,
    }));
    this.#now = now;
  }

  /**
   * Takes a token from every bucket the call falls in; throws (or, with a shared store, rejects with) a
   * JSON-RPC error naming the limit otherwise.
   */
  take(principal: string | undefined, tool: string): void | Promise<void> {
    if (!this.#principal && this.#tools.length === 0) return;
    const who = principal ?? 'anonymous';
    const buckets: Array<{ key: string; limit: RateLimit; what: string }> = [];
    if (this.#principal) buckets.push({ key: `p\u0000${who}`, limit: this.#principal, what: 'requests' });
    for (const rule of this.#tools) {
      if (rule.glob.matches(tool))
        buckets.push({ key: `t\u0000${rule.key}\u0000${who}`, limit: rule.limit, what: `calls of ${tool}` });
    }
    // No bucket for this call (a per-tool limit on other tools): nothing to take, and no Redis round trip.
    if (buckets.length === 0) return;
    if (this.#store) return this.#takeShared(this.#store, who, buckets);
    const now = this.#now();
    const states = buckets.map((bucket) => ({
      ...bucket,
      state: this.#refill(bucket.key, bucket.limit, now),
    }));
    const empty = states.find((bucket) => bucket.state.tokens < 1);
    if (empty) {
      const retryAfterMs = Math.ceil(((1 - empty.state.tokens) / empty.limit.refillPerSecond) * 1000);
      throw refused(empty, retryAfterMs);
    }
    for (const bucket of states) bucket.state.tokens -= 1;
  }

  async #takeShared(
    store: RateLimitStore,
    principal: string,
    buckets: ReadonlyArray<{ key: string; limit: RateLimit; what: string }>,
  ): Promise<void> {
    const refusal = await store.take(buckets.map(({ key, limit }) => ({ key, principal, ...limit })));
    const empty = refusal && buckets[refusal.index];
    if (empty) throw refused(empty, refusal.retryAfterMs);
  }

  #refill(key: string, limit: RateLimit, now: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#buckets.clear();
      bucket = { tokens: limit.capacity, at: now };
      this.#buckets.set(key, bucket);
      return bucket;
    }
    const elapsed = (now - bucket.at) / 1000;
    bucket.tokens = Math.min(limit.capacity, bucket.tokens + elapsed * limit.refillPerSecond);
    bucket.at = now;
    return bucket;
  }
}

function refused(bucket: { limit: RateLimit; what: string }, retryAfterMs: number): RpcError {
  return new RpcError(
    RATE_LIMITED,
    `rate limit exceeded: too many ${bucket.what}; retry in ${retryAfterMs} ms`,
    { retryAfterMs, limit: bucket.limit },
  );
}

/** One forwarded request, as the audit log records it. */
export interface GatewayAuditEntry {
  readonly ts: string;
  /** The principal, or null when the endpoint has no auth. */
  readonly principal: string | null;
  readonly method: 'tools/call' | 'prompts/get' | 'resources/read';
  /** The name (or URI) the downstream used. */
  readonly name: string;
  readonly server: string;
  /** The name (or URI) on the upstream. */
  readonly upstreamName: string;
  readonly status: 'ok' | 'error' | 'denied' | 'rate_limited';
  readonly isError: boolean;
  readonly error?: string;
  /** A resources/read answered from the gateway's response cache (the upstream was not asked). */
  readonly cached?: boolean;
  readonly durationMs: number;
}

export type GatewayAuditSink = (entry: GatewayAuditEntry) => void | Promise<void>;
