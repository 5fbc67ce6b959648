/**
 * Answers the server's requests for input with the host's handlers. The same code serves both eras: MRTR
 * `inputRequests` (2026-07-28 basic/patterns/mrtr) and server-initiated requests on a handshake-era session.
 */
import { ErrorCode, LocalError, RpcError } from '../jsonrpc/errors.js';
import { Method } from '../mcp/methods.js';
import type { ClientCapabilities, ElicitRequestParams, ElicitResult, JSONObject } from '../mcp/types.js';
import type { ClientHandlers, InputContext } from './types.js';
import { isRecord } from '../util/record.js';

/** Capabilities implied by the handlers a host supplied (used when none are declared explicitly). */
export function capabilitiesFromHandlers(
  handlers: ClientHandlers | undefined,
  version: string,
): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers?.roots) capabilities.roots = { listChanged: true };
  if (handlers?.sampling) capabilities.sampling = {};
  if (handlers?.elicitation) {
    // Form and URL modes were split in 2025-11-25; older revisions know only `elicitation: {}`.
    capabilities.elicitation = version >= '2025-11-25' ? { form: {}, url: {} } : {};
  }
  return capabilities;
}

/**
 * Runs the handler for one input request. Throws RpcError -32601 for a method the host cannot answer (a legacy
 * server gets it as the error response) and passes handler errors through.
 */
export async function answerInputRequest(
  handlers: ClientHandlers | undefined,
  method: string,
  params: JSONObject | undefined,
  context: InputContext,
): Promise<Record<string, unknown>> {
  switch (method) {
    case Method.ElicitationCreate: {
      if (!handlers?.elicitation)
        throw new RpcError(ErrorCode.MethodNotFound, 'this client does not support elicitation');
      const request = (params ?? {}) as ElicitRequestParams;
      const result = await handlers.elicitation(request, context);
      return withElicitationDefaults(request, result) as Record<string, unknown>;
    }
    case Method.SamplingCreateMessage: {
      if (!handlers?.sampling)
        throw new RpcError(ErrorCode.MethodNotFound, 'this client does not support sampling');
      return (await handlers.sampling(params as never, context)) as Record<string, unknown>;
    }
    case Method.RootsList: {
      if (!handlers?.roots) throw new RpcError(ErrorCode.MethodNotFound, 'this client does not expose roots');
      return { roots: await handlers.roots(context) };
    }
    default:
      throw new RpcError(ErrorCode.MethodNotFound, `unsupported input request ${method}`);
  }
}

/**
 * SEP-1034: an accepted form fills the fields the user left out with the defaults the requested schema
 * declares, so the server sees a complete answer.
 */
export function withElicitationDefaults(request: ElicitRequestParams, result: ElicitResult): ElicitResult {
  if (result.action !== 'accept') return result;
  const properties = (request.requestedSchema as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  if (!isRecord(properties)) return result;
  const content: Record<string, unknown> = { ...result.content };
  let changed = false;
  for (const [name, schema] of Object.entries(properties)) {
    if (name in content || !isRecord(schema) || !('default' in schema)) continue;
    content[name] = schema.default;
    changed = true;
  }
  return changed ? { ...result, content: content as ElicitResult['content'] } : result;
}

/** The MRTR input requests of one round, validated for shape (keys to {method, params}). */
export function readInputRequests(value: unknown): Array<[string, string, JSONObject | undefined]> {
  if (value === undefined) return [];
  if (!isRecord(value)) {
    throw new LocalError('protocol_error', 'inputRequests must be an object');
  }
  const requests: Array<[string, string, JSONObject | undefined]> = [];
  for (const [key, request] of Object.entries(value)) {
    const method = (request as { method?: unknown } | null)?.method;
    if (typeof method !== 'string')
      throw new LocalError('protocol_error', `inputRequests.${key} has no method`);
    const params = (request as { params?: unknown }).params;
    requests.push([key, method, isRecord(params) ? params : undefined]);
  }
  return requests;
}
