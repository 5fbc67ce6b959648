/** How the client reads a failed request: the error to show, and whether the link itself failed. */
import { LocalError, isLocalError } from '../jsonrpc/errors.js';
import { HttpStatusError } from '../transports/http/client/errors.js';

/** The error a caller should see: the transport's own failure rather than the connection's wrapper. */
export function unwrapError(error: unknown): unknown {
  if (
    error instanceof LocalError &&
    (error.code === 'transport_error' || error.code === 'connection_closed')
  ) {
    if (error.cause instanceof LocalError) return error.cause;
  }
  return error;
}

export function httpStatusOf(error: unknown): HttpStatusError | undefined {
  const unwrapped = unwrapError(error);
  return unwrapped instanceof HttpStatusError ? unwrapped : undefined;
}

export function isLinkFailure(error: unknown): boolean {
  if (error instanceof HttpStatusError) return false;
  return (
    isLocalError(error, 'connection_closed') ||
    isLocalError(error, 'process_exited') ||
    isLocalError(error, 'transport_error')
  );
}

/** A rejection handler: rethrows the transport's own failure (see `unwrapError`). */
export function rethrowUnwrapped(error: unknown): never {
  throw unwrapError(error);
}
