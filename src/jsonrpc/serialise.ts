/**
 * JSON text of outgoing messages, once, with a way out for a response JSON cannot express: the internal error
 * `unserialisableAnswer` makes for its id takes its place.
 */
import { LocalError } from './errors.js';
import { type JSONRPCErrorResponse, isRequestId } from './messages.js';
import { isRecord } from '../util/record.js';

/** What JSON.stringify throws for values JSON cannot express: nesting past the stack, cycles, BigInt. */
export function isUnserialisable(error: unknown): boolean {
  return (
    error instanceof RangeError || (error instanceof TypeError && /circular|BigInt/i.test(error.message))
  );
}

/**
 * JSON text of an outgoing message. A response JSON cannot express is replaced by the internal error
 * `unserialisableAnswer` makes for its id; any other message that cannot be serialised throws a LocalError.
 */
export function stringifyMessage(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    const answer = unserialisableAnswer(message, error);
    if (!answer)
      throw new LocalError(
        'protocol_error',
        `the message could not be serialised: ${(error as Error).message}`,
      );
    return JSON.stringify(answer);
  }
}

/**
 * The answer to send instead of a response JSON cannot express (a handler's result nested past the stack,
 * circular, holding a BigInt): an internal error for the same id, so the peer is not left waiting. Undefined
 * for anything that is not such a response.
 */
export function unserialisableAnswer(message: unknown, error: unknown): JSONRPCErrorResponse | undefined {
  if (!isUnserialisable(error) || !isRecord(message) || !isRequestId(message.id)) return undefined;
  if (!('result' in message) && !('error' in message)) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32603, message: `the result could not be serialised: ${(error as Error).message}` },
  };
}
