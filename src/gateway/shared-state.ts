/**
 * What a gateway instance keeps that a caller's next request may need on another instance, behind interfaces
 * whose defaults are this process alone. Several gateway instances behind a balancer behave as one when they
 * share (agentforge/redis implements each):
 * - `rateLimits`: the token buckets, so a principal's limit is global, not per instance;
 * - `taskRoutes`: which upstream, and for whom, each task handed out runs (tasks/get through any instance);
 * - `responseCache`: upstream resources/read results still fresh by their ttlMs, public ones served to every
 *   principal and private ones only to the principal they were read for (see response-cache.ts);
 * - `bus`: messages between instances, over which a 2026-07-28 MRTR retry reaches the instance holding the
 *   upstream request its earlier round left open (see relay.ts);
 * and, configured elsewhere, the gateway's `requestState` (a key ring in configuration, one-time claims in a
 * shared `OneTimeStateStore`) and the HTTP `sessionStore` / `eventStore` of 2025-era sessions.
 */
import type { ResponseCache } from './response-cache.js';

/** One token bucket a request takes from: `capacity` requests at once, refilled at `refillPerSecond`. */
export interface TokenBucket {
  /** Names the bucket (principal, and tool glob for a per-tool limit). */
  readonly key: string;
  /** Whose bucket it is ('anonymous' without auth): every bucket of one take is one principal's. */
  readonly principal: string;
  readonly capacity: number;
  readonly refillPerSecond: number;
}

/** A refused take: the first empty bucket (its index in the request) and the wait until it holds a token. */
export interface RateLimitRefusal {
  readonly index: number;
  readonly retryAfterMs: number;
}

export interface RateLimitStore {
  /** Takes one token from every bucket, all or none: undefined when taken, the refusal otherwise. */
  take(buckets: readonly TokenBucket[]): Promise<RateLimitRefusal | undefined>;
}

/** Where a task the gateway handed out runs, as any instance needs it to relay tasks/get, update and cancel. */
export interface StoredTaskRoute {
  /** The upstream server. */
  readonly server: string;
  /** The principal it runs for; every other principal finds no such task. */
  readonly principal?: string;
  /** The upstream's own task id. */
  readonly upstreamId: string;
}

export interface TaskRouteStore {
  /** Records a route, forgotten after `ttlMs` (the task's own TTL upstream, or the gateway's retention). */
  set(taskId: string, route: StoredTaskRoute, ttlMs: number): Promise<void>;
  get(taskId: string): Promise<StoredTaskRoute | undefined>;
}

/**
 * Messages between the gateway instances sharing state: each has an id, hears what is broadcast and what is
 * sent to it. Publish/subscribe semantics (no history): a message sent while an instance is away is lost.
 */
export interface GatewayBus {
  /** This instance's id (unique among the instances sharing the bus). */
  readonly instance: string;
  /** Sends to every instance, this one included; resolves to how many instances received it. */
  broadcast(message: string): Promise<number>;
  /** Sends to one instance. */
  send(instance: string, message: string): Promise<void>;
  /** Calls `handler` for every message broadcast or sent to this instance. Returns the unsubscribe. */
  subscribe(handler: (message: string) => void): () => void;
}

export interface GatewaySharedState {
  readonly rateLimits?: RateLimitStore;
  readonly taskRoutes?: TaskRouteStore;
  readonly bus?: GatewayBus;
  /** Default: an InMemoryResponseCache of this process. */
  readonly responseCache?: ResponseCache;
}

/** Reads a stored route from untrusted bytes (another process wrote it). */
export function readTaskRoute(value: unknown): StoredTaskRoute | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { server, principal, upstreamId } = value as Record<string, unknown>;
  if (typeof server !== 'string' || typeof upstreamId !== 'string') return undefined;
  if (principal !== undefined && typeof principal !== 'string') return undefined;
  return principal === undefined ? { server, upstreamId } : { server, principal, upstreamId };
}

/** Routes remembered by one instance at most; the oldest is forgotten first. */
const MAX_ROUTES = 10_000;

/** The default: this process's memory, bounded, each route forgotten at its expiry. */
export class InMemoryTaskRouteStore implements TaskRouteStore {
  readonly #routes = new Map<string, { route: StoredTaskRoute; expiresAt: number }>();
  readonly #max: number;

  constructor(maxEntries = MAX_ROUTES) {
    this.#max = Math.max(1, maxEntries);
  }

  async set(taskId: string, route: StoredTaskRoute, ttlMs: number): Promise<void> {
    this.#routes.delete(taskId);
    if (this.#routes.size >= this.#max) this.#routes.delete(this.#routes.keys().next().value!);
    this.#routes.set(taskId, { route, expiresAt: Date.now() + ttlMs });
  }

  async get(taskId: string): Promise<StoredTaskRoute | undefined> {
    const entry = this.#routes.get(taskId);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.route;
    this.#routes.delete(taskId);
    return undefined;
  }
}
