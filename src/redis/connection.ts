/**
 * The Redis connections the shared backends use. A user hands over a client they configured (standalone,
 * Sentinel through `sentinels` options, or a `Cluster`) or the options to make one. Clients made here fail a
 * command quickly while Redis is unreachable (one retry, a command timeout), so a request that needs Redis gets
 * a clear error instead of hanging, and requests that do not need it are untouched.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';

export type RedisClient = Redis | Cluster;

/** An ioredis client (Redis or Cluster), its options, or a `redis://` URL. */
export type RedisConnection = RedisClient | RedisOptions | string;

export interface RedisBackendOptions {
  /** The Redis to use (default: a client for 127.0.0.1:6379). */
  redis?: RedisConnection;
  /** Prefix of every key and channel (default 'agentforge:'); instances sharing state share it. */
  prefix?: string;
}

/** Defaults for clients made here: bounded waits while Redis is down, reconnecting with a capped backoff. */
const FAIL_FAST: RedisOptions = {
  maxRetriesPerRequest: 1,
  commandTimeout: 2000,
  retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
  lazyConnect: false,
};

export interface OwnedClient {
  readonly client: RedisClient;
  /** True when this module made the client, so closing the backend closes it. */
  readonly owned: boolean;
}

export function redisClient(connection: RedisConnection | undefined): OwnedClient {
  if (connection instanceof Redis || connection instanceof Cluster)
    return { client: connection, owned: false };
  const client =
    typeof connection === 'string'
      ? new Redis(connection, FAIL_FAST)
      : new Redis({ ...FAIL_FAST, ...connection });
  // Connection errors reach the callers as rejected commands; the event itself would only be printed.
  client.on('error', () => {});
  return { client, owned: true };
}

export function keyPrefix(options: RedisBackendOptions): string {
  return options.prefix ?? 'agentforge:';
}

/** Ends a client this module made; a client the user gave stays theirs to close. */
export async function release(owned: OwnedClient): Promise<void> {
  if (owned.owned) await closeClient(owned.client);
}

/** QUIT while connected (pending replies arrive first); while Redis is away, just drop the connection. */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/** Largest message accepted from a channel: anything bigger was not published by agentforge. */
export const MAX_CHANNEL_MESSAGE = 1024 * 1024;

/** JSON from a channel or a stored value; undefined for oversized or malformed text. */
export function parseStored(text: string | null | undefined, maxBytes = MAX_CHANNEL_MESSAGE): unknown {
  if (typeof text !== 'string' || text.length > maxBytes) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Redis could not serve a command a request needed: the request fails with -32603 and this message (the
 * client's own message stays in `cause`, out of the wire), and the process goes on serving everything else.
 */
export class SharedStateUnavailableError extends RpcError {
  constructor(cause: unknown) {
    super(ErrorCode.InternalError, 'Shared state unavailable: Redis cannot be reached, retry later');
    this.name = 'SharedStateUnavailableError';
    this.cause = cause;
  }
}

/** A refusal of the backend itself (a duplicate, a lost race), not a failure of Redis. */
export class SharedStateError extends Error {
  override name = 'SharedStateError';
}

/** Runs a Redis operation; a failure of Redis itself becomes SharedStateUnavailableError. */
export async function shared<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    if (error instanceof RpcError || error instanceof SharedStateError) throw error;
    throw new SharedStateUnavailableError(error);
  }
}
