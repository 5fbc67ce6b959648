import { LocalError } from '../jsonrpc/errors.js';

/** `task` is the tasks extension's CreateTaskResult (SEP-2663 Polymorphic Results): final, like `complete`. */
export type ResultType = 'complete' | 'input_required' | 'task';

/**
 * 2026-07-28 schema: Result.resultType. A result from an older peer carries none and is "complete"; a value we
 * do not know is an invalid result, not something to guess at.
 */
export function readResultType(result: Record<string, unknown>): ResultType {
  const value = result.resultType;
  if (value === undefined || value === 'complete') return 'complete';
  if (value === 'input_required') return 'input_required';
  if (value === 'task') return 'task';
  throw new LocalError('protocol_error', `unknown resultType ${JSON.stringify(value)} in result`);
}
