/**
 * What the gateway does with an upstream's input request (elicitation, sampling, roots) a caller cannot take:
 * none is being served, or the caller did not declare the capability.
 */
import type { ClientCapabilities, InputRequest, JSONObject } from '../mcp/types.js';

type InputMethod = InputRequest['method'];

/**
 * The answer to an upstream's input request that no caller can give: none is being served, or the caller did
 * not declare the capability (a server MUST NOT send it a request it did not declare). client/elicitation
 * allows declining; an empty roots list is what a client with no roots has; sampling cannot be made up.
 */
export function answerWithoutCaller(method: InputMethod): Promise<Record<string, unknown>> {
  if (method === 'elicitation/create') return Promise.resolve({ action: 'decline' });
  if (method === 'roots/list') return Promise.resolve({ roots: [] });
  return Promise.reject(
    new Error('the caller did not declare sampling: the upstream cannot sample through it'),
  );
}

/** Whether `capabilities` declare what `method` (with `params`: an elicitation's mode) needs. */
export function declares(
  capabilities: ClientCapabilities | undefined,
  method: InputMethod,
  params: JSONObject,
): boolean {
  if (method === 'roots/list') return capabilities?.roots !== undefined;
  if (method === 'sampling/createMessage') return capabilities?.sampling !== undefined;
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (elicitation === undefined) return false;
  // client/elicitation: `{}` declares form mode only; url mode needs `url`.
  return params.mode === 'url' ? elicitation.url !== undefined : true;
}
