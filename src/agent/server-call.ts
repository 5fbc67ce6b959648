/**
 * How a registered tool reaches its server: a tools/call, or, for the readers and getters the host exposes as
 * tools, a resources/read or prompts/get whose answer becomes tool content. And what a failed call says about
 * the link: an answer means the server is up; a failure of the link itself is confirmed with one more request.
 */
import { LocalError } from '../jsonrpc/errors.js';
import type { CallToolResult, GetPromptResult } from '../mcp/types.js';
import { isRecord } from '../util/record.js';
import type { HostClient, ToolCallOptions } from './client-surface.js';
import type { RegisteredTool } from './registry.js';
import { type ServerSlot, messageOf } from './server-slot.js';
import { callToolThenOf } from './task-client.js';

/**
 * Calls `tool` on its server (`slot`), going on with `onResult` or `onFailure`. A link failure may mean the server
 * is gone: confirmLost decides, with one more request, before `onFailure` hears of it.
 */
export function callOnSlot<T>(
  slot: ServerSlot | undefined,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  options: ToolCallOptions,
  onResult: (result: CallToolResult) => T | PromiseLike<T>,
  onFailure: (error: unknown) => T | PromiseLike<T>,
): Promise<T> {
  const client = slot?.client;
  if (!slot || !client) {
    const state = slot?.state ?? 'unknown';
    const error = new LocalError('not_connected', `server ${tool.server} is not connected (${state})`);
    return Promise.reject(error).then(undefined, onFailure);
  }
  const timeoutMs = slot.config.timeoutMs;
  const callOptions = timeoutMs === undefined ? options : { ...options, timeoutMs };
  const failed = (error: unknown): T | PromiseLike<T> =>
    isLinkFailure(error)
      ? confirmLost(slot, client, error).then(() => onFailure(error), onFailure)
      : onFailure(error);
  try {
    return callOnServer(client, tool, args, callOptions, onResult, failed);
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }
}

/**
 * Calls `tool` on its server's client, as a tool call, a resource read or a prompt get by its kind, and goes on
 * with `onResult` or `onFailure`. A tool call adds no reaction of its own to the client's: through its
 * `callTool`'s continuation form when it has one (the default connector's), else one `then` on its promise.
 */
function callOnServer<T>(
  client: HostClient,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  options: ToolCallOptions,
  onResult: (result: CallToolResult) => T | PromiseLike<T>,
  onFailure: (error: unknown) => T | PromiseLike<T>,
): Promise<T> {
  if (tool.kind === 'resource') return readAsTool(client, args, options.signal).then(onResult, onFailure);
  if (tool.kind === 'prompt') return promptAsTool(client, args, options.signal).then(onResult, onFailure);
  const params = { name: tool.mcpName, arguments: args };
  const callTool = client.callTool;
  const callToolThen = callToolThenOf(callTool);
  if (callToolThen) return callToolThen(params, options, onResult, onFailure);
  return client.callTool(params, options).then(onResult, onFailure);
}

async function readAsTool(
  client: HostClient,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<CallToolResult> {
  const read = await client.readResource({ uri: String(args.uri ?? '') }, signal ? { signal } : {});
  return { content: read.contents.map((resource) => ({ type: 'resource' as const, resource })) };
}

async function promptAsTool(
  client: HostClient,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<CallToolResult> {
  const prompt = await client.getPrompt(
    { name: String(args.name ?? ''), arguments: stringRecord(args.arguments) },
    signal ? { signal } : {},
  );
  return { content: promptAsContent(prompt) };
}

/**
 * A request that could not reach the server may mean the server is gone (over HTTP nothing else would tell):
 * one more request decides, so a single dropped keep-alive socket is not a dead server.
 */
export async function confirmLost(slot: ServerSlot, client: HostClient, error: unknown): Promise<void> {
  const signal = AbortSignal.timeout(2_000);
  const probing = client.ping ? client.ping({ signal }) : client.listTools({ signal });
  const probe = await probing.then(
    () => undefined,
    (probeError: unknown) => probeError,
  );
  if (probe !== undefined && isLinkFailure(probe)) slot.connectionLost(client, messageOf(error));
}

/**
 * The link itself failed (process gone, connection refused or dropped), as opposed to an answer: a JSON-RPC
 * error, an HTTP status (the server is up), a timeout or a cancellation.
 */
export function isLinkFailure(error: unknown): boolean {
  if (!(error instanceof LocalError)) return false;
  if (!['connection_closed', 'process_exited', 'transport_error'].includes(error.code)) return false;
  const status = (error.data as { status?: unknown } | undefined)?.status;
  const cause = error.cause as { data?: { status?: unknown } } | undefined;
  return status === undefined && cause?.data?.status === undefined;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

function promptAsContent(prompt: GetPromptResult): CallToolResult['content'] {
  const head = prompt.description ? [{ type: 'text' as const, text: prompt.description }] : [];
  return [
    ...head,
    ...prompt.messages.map((message) =>
      message.content.type === 'text'
        ? { type: 'text' as const, text: `[${message.role}] ${message.content.text}` }
        : message.content,
    ),
  ];
}
