/**
 * The OAuth client as one request-pipeline middleware: the request goes out with the current token (the
 * transport's header hook adds it); a 401, or a 403 `insufficient_scope`, hands the challenge to the provider,
 * which refreshes, authorizes or steps up, and the request is sent again. A request gets at most three
 * authorization rounds (2025-11-25 basic/authorization: Scope Challenge Handling; retry limits).
 */
import { HttpStatusError } from '../../transports/http/client/errors.js';
import type { Next } from '../../util/compose.js';
import { AuthorizationError } from './errors.js';
import type { OAuthClientProvider } from './provider.js';

export const MAX_AUTHORIZATION_ROUNDS = 3;
/** RFC 9449 §9: a fresh nonce is asked for at most this many times in a row. */
const MAX_NONCE_ROUNDS = 2;

/** The authorization challenge inside an error (the connection wraps transport failures as their cause). */
export function challengeOf(error: unknown): HttpStatusError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof HttpStatusError)
      return current.status === 401 ||
        (current.status === 403 && current.headers['www-authenticate'] !== undefined)
        ? current
        : undefined;
    current = current.cause;
  }
  return undefined;
}

/**
 * A `Middleware` (src/util/compose.ts) for any context with a `method` and any result. It calls `next` again to
 * retry, so in a `compose` pipeline it needs a composer that allows re-invoking the rest of the chain.
 */
export function oauthMiddleware(
  provider: OAuthClientProvider,
): <C extends { readonly method: string }, R>(context: C, next: Next<C, R>) => Promise<R> {
  return async (context, next) => {
    let rounds = 0;
    let nonceRounds = 0;
    for (;;) {
      const generation = provider.generation;
      try {
        return await next(context);
      } catch (error) {
        const refused = challengeOf(error);
        if (!refused) throw error;
        const outcome = await provider.handleChallenge(
          refused.status,
          refused.headers,
          generation,
          rounds < MAX_AUTHORIZATION_ROUNDS,
        );
        if (outcome === 'nonce') {
          if (++nonceRounds > MAX_NONCE_ROUNDS)
            throw new AuthorizationError(
              'unauthorized',
              `${context.method}: the server keeps asking for a new DPoP nonce`,
            );
          continue;
        }
        rounds++;
      }
    }
  };
}
