/**
 * Middleware as plain functions (Hono's `compose`, tRPC's links): each receives the context and `next`.
 * Code before `await next(ctx)` runs "before", code after it runs "after"; passing a new context modifies
 * the call, returning without calling `next` short-circuits it (a cached result, a denial).
 */
export type Next<C, R> = (context: C) => Promise<R>;
export type Middleware<C, R> = (context: C, next: Next<C, R>) => Promise<R>;

export interface ComposeOptions {
  /**
   * Lets a middleware call `next` again (tRPC's retry link): a request pipeline resends after a failure or for
   * another round. Off by default, where a second `next()` is a bug (a tool run twice).
   */
  repeatableNext?: boolean;
}

/** Runs `middlewares` outermost first around `terminal`. Calling `next` twice from one middleware is a bug. */
export function compose<C, R>(
  middlewares: readonly Middleware<C, R>[],
  terminal: Next<C, R>,
  options: ComposeOptions = {},
): Next<C, R> {
  if (options.repeatableNext) return composeRepeatable(middlewares, terminal);
  // Nothing to order: the terminal itself, with no dispatch closure per call.
  if (middlewares.length === 0) return terminal;
  return (context) => {
    let last = -1;
    const dispatch = (index: number, current: C): Promise<R> => {
      if (index <= last) return Promise.reject(new Error('next() called more than once'));
      last = index;
      const middleware = middlewares[index];
      if (!middleware) return terminal(current);
      try {
        return middleware(current, (nextContext) => dispatch(index + 1, nextContext));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0, context);
  };
}

/**
 * Each layer's `next` is built once, not per call: a pipeline on a hot path (every client request) allocates
 * nothing of its own per call.
 */
function composeRepeatable<C, R>(middlewares: readonly Middleware<C, R>[], terminal: Next<C, R>): Next<C, R> {
  let next: Next<C, R> = terminal;
  for (let index = middlewares.length - 1; index >= 0; index--) {
    const middleware = middlewares[index]!;
    const inner = next;
    next = (context) => {
      try {
        return middleware(context, inner);
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return next;
}
