/**
 * Results from a server, checked by shape where the client relies on them: what is cast after these checks is
 * what they checked. A result that breaks them is a `protocol_error` naming the server and the method, never a
 * `TypeError` deep in a caller.
 */
import type { Result } from '../jsonrpc/connection.js';
import { LocalError } from '../mcp/local-errors.js';
import { Method } from '../mcp/methods.js';
import type { CallToolResult, Implementation, ServerCapabilities } from '../mcp/types.js';
import { isRecord } from '../util/record.js';

function malformed(server: string, method: string, what: string): LocalError {
  return new LocalError('protocol_error', `${server} answered ${method} with ${what}`);
}

/** A page of a list method: `field` is an array of objects, `nextCursor` a string if present. */
export function checkListPage(result: Result, field: string, server: string, method: string): Result {
  if (!isRecord(result)) throw malformed(server, method, 'a result that is not an object');
  const items = result[field];
  if (!Array.isArray(items)) throw malformed(server, method, `no "${field}" array`);
  if (!items.every(isRecord)) throw malformed(server, method, `a "${field}" entry that is not an object`);
  const cursor = result.nextCursor;
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string')
    throw malformed(server, method, `a nextCursor that is not a string (${JSON.stringify(cursor)})`);
  return result;
}

/**
 * tools/call: `content` is an array of content blocks (objects with a string `type`). `server` names the server
 * and is called only for an error: the check runs on every call.
 */
export function checkCallToolResult(result: Result, server: () => string): CallToolResult {
  if (!isRecord(result)) throw malformed(server(), Method.ToolsCall, 'a result that is not an object');
  const content = result.content;
  if (!Array.isArray(content)) throw malformed(server(), Method.ToolsCall, 'no "content" array');
  for (const block of content) {
    if (!isRecord(block) || typeof block.type !== 'string')
      throw malformed(server(), Method.ToolsCall, 'a content block without a string "type"');
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean')
    throw malformed(server(), Method.ToolsCall, 'an "isError" that is not a boolean');
  return result as unknown as CallToolResult;
}

export interface ServerIdentity {
  serverInfo: Implementation | undefined;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
}

/** The identity fields of initialize and server/discover results (absent fields are allowed). */
export function readServerIdentity(
  result: Result,
  serverInfo: unknown,
  server: string,
  method: string,
): ServerIdentity {
  const capabilities = result.capabilities ?? {};
  if (!isRecord(capabilities)) throw malformed(server, method, 'capabilities that are not an object');
  const info = serverInfo ?? undefined;
  if (info !== undefined && !(isRecord(info) && typeof info.name === 'string'))
    throw malformed(server, method, 'a serverInfo without a string name');
  const instructions = result.instructions ?? undefined;
  if (instructions !== undefined && typeof instructions !== 'string')
    throw malformed(server, method, 'instructions that are not a string');
  return {
    serverInfo: info as Implementation | undefined,
    capabilities: capabilities as ServerCapabilities,
    instructions,
  };
}
