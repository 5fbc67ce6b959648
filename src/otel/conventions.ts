/**
 * The names the OpenTelemetry semantic conventions give MCP and GenAI telemetry (semantic-conventions-genai:
 * docs/gen-ai/mcp.md, gen-ai-spans.md, gen-ai-agent-spans.md), and what each MCP request is called in them: the
 * span name `{mcp.method.name} {target}` and the attributes read from the request itself.
 */
import type { Attributes } from '@opentelemetry/api';
import { Method } from '../mcp/methods.js';

export const Attr = {
  McpMethodName: 'mcp.method.name',
  McpProtocolVersion: 'mcp.protocol.version',
  McpSessionId: 'mcp.session.id',
  McpResourceUri: 'mcp.resource.uri',
  JsonRpcRequestId: 'jsonrpc.request.id',
  RpcResponseStatusCode: 'rpc.response.status_code',
  ErrorType: 'error.type',
  NetworkTransport: 'network.transport',
  NetworkProtocolName: 'network.protocol.name',
  ServerAddress: 'server.address',
  ServerPort: 'server.port',
  ClientAddress: 'client.address',
  ClientPort: 'client.port',
  GenAiOperationName: 'gen_ai.operation.name',
  GenAiToolName: 'gen_ai.tool.name',
  GenAiToolCallId: 'gen_ai.tool.call.id',
  GenAiToolCallArguments: 'gen_ai.tool.call.arguments',
  GenAiToolCallResult: 'gen_ai.tool.call.result',
  GenAiPromptName: 'gen_ai.prompt.name',
  GenAiProviderName: 'gen_ai.provider.name',
  GenAiRequestModel: 'gen_ai.request.model',
  GenAiRequestMaxTokens: 'gen_ai.request.max_tokens',
  GenAiRequestTemperature: 'gen_ai.request.temperature',
  GenAiResponseFinishReasons: 'gen_ai.response.finish_reasons',
  GenAiUsageInputTokens: 'gen_ai.usage.input_tokens',
  GenAiUsageOutputTokens: 'gen_ai.usage.output_tokens',
  GenAiConversationId: 'gen_ai.conversation.id',
  GenAiInputMessages: 'gen_ai.input.messages',
  GenAiOutputMessages: 'gen_ai.output.messages',
} as const;

export const Metric = {
  ClientOperationDuration: 'mcp.client.operation.duration',
  ServerOperationDuration: 'mcp.server.operation.duration',
  ClientSessionDuration: 'mcp.client.session.duration',
  ServerSessionDuration: 'mcp.server.session.duration',
} as const;

/** mcp.md: Recording MCP transport, on a server: stdio is a pipe; an HTTP request brings its headers. */
export const OVER_HTTP: Attributes = { [Attr.NetworkTransport]: 'tcp', [Attr.NetworkProtocolName]: 'http' };
export const OVER_PIPE: Attributes = { [Attr.NetworkTransport]: 'pipe' };

/** mcp.md: the explicit bucket boundaries advised for both operation-duration histograms, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** `error.type` of a tools/call whose result has `isError: true` (mcp.md: Recording errors). */
export const TOOL_ERROR = 'tool_error';

/** A peer's name or URI in a span name is cut here: both are the peer's, and a span name is no place for 1 MB. */
const MAX_TARGET_LENGTH = 1024;
/** Recorded arguments and results (opt-in) are cut at this many characters. */
const MAX_CONTENT_LENGTH = 64 * 1024;

/** What one request is about, from its params: the span name's target and the attributes that name it. */
export interface Operation {
  readonly name: string;
  /** The span's attributes of the operation. */
  readonly attributes: Attributes;
  /** The same without what only a span should carry (the resource URI: one series per URI otherwise). */
  readonly metricAttributes: Attributes;
}

function stringParam(params: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = params?.[key];
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_TARGET_LENGTH) : undefined;
}

/**
 * mcp.md: span name `{mcp.method.name} {target}`, the target being the tool or prompt asked for; a resource's URI
 * is an attribute (`mcp.resource.uri`), not part of the name.
 */
export function operationOf(method: string, params: Record<string, unknown> | undefined): Operation {
  if (method === Method.ToolsCall) {
    const target = stringParam(params, 'name');
    const attributes: Attributes =
      target === undefined
        ? { [Attr.McpMethodName]: method, [Attr.GenAiOperationName]: 'execute_tool' }
        : {
            [Attr.McpMethodName]: method,
            [Attr.GenAiOperationName]: 'execute_tool',
            [Attr.GenAiToolName]: target,
          };
    return {
      name: target === undefined ? method : `${method} ${target}`,
      attributes,
      metricAttributes: attributes,
    };
  }
  if (method === Method.PromptsGet) {
    const target = stringParam(params, 'name');
    const attributes: Attributes =
      target === undefined
        ? { [Attr.McpMethodName]: method }
        : { [Attr.McpMethodName]: method, [Attr.GenAiPromptName]: target };
    return {
      name: target === undefined ? method : `${method} ${target}`,
      attributes,
      metricAttributes: attributes,
    };
  }
  const plain: Attributes = { [Attr.McpMethodName]: method };
  if (
    method === Method.ResourcesRead ||
    method === Method.ResourcesSubscribe ||
    method === Method.ResourcesUnsubscribe
  ) {
    // mcp.md: the URI SHOULD NOT be the span name's target by default (one name per resource otherwise).
    const target = stringParam(params, 'uri');
    if (target !== undefined)
      return {
        name: method,
        attributes: { [Attr.McpMethodName]: method, [Attr.McpResourceUri]: target },
        metricAttributes: plain,
      };
  }
  return { name: method, attributes: plain, metricAttributes: plain };
}

/** The target of a request's span name: the tool or prompt name, or the resource URI (bounded). */
export function targetOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (method === Method.ToolsCall || method === Method.PromptsGet) return stringParam(params, 'name');
  if (
    method === Method.ResourcesRead ||
    method === Method.ResourcesSubscribe ||
    method === Method.ResourcesUnsubscribe
  )
    return stringParam(params, 'uri');
  return undefined;
}

/** An operation as one side records it; both attribute sets are shared by its every request, never changed. */
export interface RecordedOperation {
  readonly name: string;
  /** What a span starts with (the SDK copies them). */
  readonly spanAttributes: Attributes;
  /** The histogram's point attributes: low cardinality, no request or session ids, no resource URI. */
  readonly metricAttributes: Attributes;
}

const MAX_OPERATIONS = 512;

/**
 * The recorded operations by scope (the client's link, the server's transport), method, target and revision:
 * made once, so a request costs a comparison with the last one (a run of calls to one tool, the common case) or
 * a lookup, not a set of attribute objects. Bounded per scope: past the bound (a peer inventing names) each
 * request makes its own.
 */
export class OperationCache<Scope extends object> {
  readonly #byScope = new WeakMap<Scope, Map<string, RecordedOperation>>();
  readonly #transportOf: (scope: Scope) => Attributes;
  #last: LastOperation<Scope> | undefined;

  /** `transportOf`: the transport attributes of a scope, asked once per operation made. */
  constructor(transportOf: (scope: Scope) => Attributes) {
    this.#transportOf = transportOf;
  }

  get(
    scope: Scope,
    method: string,
    params: Record<string, unknown> | undefined,
    version: string,
  ): RecordedOperation {
    const target = targetOf(method, params);
    const last = this.#last;
    if (
      last !== undefined &&
      last.scope === scope &&
      last.method === method &&
      last.target === target &&
      last.version === version
    )
      return last.operation;
    let operations = this.#byScope.get(scope);
    if (operations === undefined) {
      operations = new Map();
      this.#byScope.set(scope, operations);
    }
    const key = `${method}\n${target ?? ''}\n${version}`;
    let operation = operations.get(key);
    if (operation === undefined) {
      operation = recordedOperation(method, params, this.#transportOf(scope), version);
      if (operations.size < MAX_OPERATIONS) operations.set(key, operation);
    }
    this.#last = { scope, method, target, version, operation };
    return operation;
  }
}

interface LastOperation<Scope> {
  readonly scope: Scope;
  readonly method: string;
  readonly target: string | undefined;
  readonly version: string;
  readonly operation: RecordedOperation;
}

/** The operation of `method` over a transport described by `transport`, in revision `version`. */
export function recordedOperation(
  method: string,
  params: Record<string, unknown> | undefined,
  transport: Attributes,
  version: string,
): RecordedOperation {
  const operation = operationOf(method, params);
  const common: Attributes = version ? { ...transport, [Attr.McpProtocolVersion]: version } : transport;
  return {
    name: operation.name,
    spanAttributes: { ...operation.attributes, ...common },
    metricAttributes: { ...operation.metricAttributes, ...common },
  };
}

/** `base` with the failure's `error.type` (and JSON-RPC code): failures are rare, each gets its own set. */
export function withError(base: Attributes, errorType: string, code: number | undefined): Attributes {
  const attributes: Attributes = { ...base, [Attr.ErrorType]: errorType };
  if (code !== undefined) attributes[Attr.RpcResponseStatusCode] = String(code);
  return attributes;
}

/**
 * mcp.md: `error.type` is the JSON-RPC error code when the peer answered with an error; otherwise a
 * low-cardinality name of the failure: the local error's code (`timeout`, `connection_closed`) or the
 * exception's name.
 */
export function errorTypeOf(error: unknown): { type: string; code?: number } {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'number' && Number.isInteger(code)) return { type: String(code), code };
    if (typeof code === 'string' && /^[a-z_]{1,64}$/.test(code)) return { type: code };
    if (typeof name === 'string' && name.length > 0) return { type: name.slice(0, 128) };
  }
  return { type: '_OTHER' };
}

/** A tools/call result the tool itself marked failed (server/tools: Error Handling). */
export function isToolError(method: string, result: unknown): boolean {
  return (
    method === Method.ToolsCall &&
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  );
}

/** Opt-in content (arguments, results, messages) as the conventions record it: a JSON string, bounded. */
export function contentAttribute(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    return undefined;
  }
  return text.length > MAX_CONTENT_LENGTH ? `${text.slice(0, MAX_CONTENT_LENGTH)}…` : text;
}
