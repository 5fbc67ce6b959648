/**
 * How a registered tool reaches its server: a tools/call, or, for the readers and getters the host exposes as
 * tools, a resources/read or prompts/get whose answer becomes tool content. And what a failed call says about
 * the link: an answer means the server is up; a failure of the link itself is confirmed with one more request.
 */
import { LocalError } from '../jsonrpc/errors.js';
import type { CallToolResult, GetPromptResult } from '../mcp/types.js';
import { isRecord } from '../util/record.js';
import type { CallSink, HostClient, ToolCallOptions } from './client-surface.js';
import type { RegisteredTool } from './registry.js';
import { type ServerSlot, messageOf } from './server-slot.js';
import { callToolIntoOf } from './task-client.js';

/**
 * Calls `tool` on its server (`slot`), its answer or failure to `sink`. A link failure may mean the server is
 * gone: confirmLost decides, with one more request, before `sink` hears of it.
 */
export function callOnSlot(
  slot: ServerSlot | undefined,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  options: ToolCallOptions,
  sink: CallSink,
): void {
  const client = slot?.client;
  if (!slot || !client) {
    const state = slot?.state ?? 'unknown';
    const error = new LocalError('not_connected', `server ${tool.server} is not connected (${state})`);
    // Told one microtask later, as a rejection would be.
    Promise.reject(error).catch((failure: unknown) => sink.failed(failure));
    return;
  }
  const timeoutMs = slot.config.timeoutMs;
  const callOptions = timeoutMs === undefined ? options : { ...options, timeoutMs };
  const watched = new SlotCall(slot, client, sink);
  try {
    callOnServer(client, tool, args, callOptions, watched);
  } catch (error) {
    Promise.reject(error).catch((failure: unknown) => watched.failed(failure));
  }
}

/** A call's sink behind the link check: a failure of the link itself is confirmed or ruled out first. */
class SlotCall implements CallSink {
  readonly #slot: ServerSlot;
  readonly #client: HostClient;
  readonly #sink: CallSink;

  constructor(slot: ServerSlot, client: HostClient, sink: CallSink) {
    this.#slot = slot;
    this.#client = client;
    this.#sink = sink;
  }

  answered(result: CallToolResult): void {
    this.#sink.answered(result);
  }

  failed(error: unknown): void {
    if (!isLinkFailure(error)) {
      this.#sink.failed(error);
      return;
    }
    confirmLost(this.#slot, this.#client, error).then(
      () => this.#sink.failed(error),
      (probeError: unknown) => this.#sink.failed(probeError),
    );
  }
}

/**
 * Calls `tool` on its server's client, as a tool call, a resource read or a prompt get by its kind, its answer to
 * `sink`. A tool call adds no reaction of its own to the client's: through its `callTool`'s continuation form
 * when it has one (the default connector's), else one `then` on its promise.
 */
function callOnServer(
  client: HostClient,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  options: ToolCallOptions,
  sink: CallSink,
): void {
  const params = { name: tool.mcpName, arguments: args };
  if (tool.kind === 'tool') {
    const callToolInto = callToolIntoOf(client.callTool);
    if (callToolInto) {
      callToolInto(params, options, sink);
      return;
    }
  }
  const answer =
    tool.kind === 'resource'
      ? readAsTool(client, args, options.signal)
      : tool.kind === 'prompt'
        ? promptAsTool(client, args, options.signal)
        : client.callTool(params, options);
  answer.then(
    (result) => sink.answered(result),
    (error: unknown) => sink.failed(error),
  );
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
