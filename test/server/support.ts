/**
 * Real peers for server tests: a JSON-RPC client Connection on the other end of an in-memory pair (handshake
 * era), and direct calls through the stateless seam (2026-07-28). Every message the server emits is validated
 * against the official schema of the revision in use.
 */
import { expect } from 'vitest';
import { Connection } from '../../src/jsonrpc/connection.js';
import type {
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
} from '../../src/jsonrpc/messages.js';
import { mcpHooks } from '../../src/mcp/hooks.js';
import { MetaKey } from '../../src/mcp/meta.js';
import type { McpServer } from '../../src/server/index.js';
import type { ServerSession } from '../../src/server/index.js';
import { InMemoryTransport } from '../../src/transports/memory/index.js';
import { expectValid, messageDefName } from '../support/schema.js';
import { type ServerSeam, seamOf } from '../../src/server/seam.js';

/** The seam the transports reach a server through (not on McpServer's public surface). */
export function statelessSeam(server: McpServer): ServerSeam {
  const seam = seamOf(server);
  if (!seam) throw new Error('not an McpServer');
  return seam;
}

export const MODERN = '2026-07-28';

/** The spec definition of each method's result (2026-07-28 names; older revisions share them). */
export const RESULT_DEF: Record<string, string> = {
  'server/discover': 'DiscoverResult',
  initialize: 'InitializeResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

const NOTIFICATION_DEF: Record<string, string> = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
};

const SERVER_REQUEST_DEF: Record<string, string> = {
  'sampling/createMessage': 'CreateMessageRequest',
  'elicitation/create': 'ElicitRequest',
  'roots/list': 'ListRootsRequest',
};

/** The envelope definition: revisions before 2025-11-25 call responses JSONRPCResponse / JSONRPCError. */
function envelopeDef(revision: string, message: JSONRPCMessage): string {
  const name = messageDefName(message as unknown as Record<string, unknown>);
  if (revision >= '2025-11-25') return name;
  return name === 'JSONRPCResultResponse'
    ? 'JSONRPCResponse'
    : name === 'JSONRPCErrorResponse'
      ? 'JSONRPCError'
      : name;
}

/** Validates one server-emitted message; `method` is the request it answers, when it is a response. */
export function validateEmitted(revision: string, message: JSONRPCMessage, method?: string): void {
  expectValid(revision, envelopeDef(revision, message), message);
  if ('method' in message) {
    const def = 'id' in message ? SERVER_REQUEST_DEF[message.method] : NOTIFICATION_DEF[message.method];
    if (def) expectValid(revision, def, message);
    return;
  }
  if ('result' in message && method) {
    const result = message.result as Record<string, unknown>;
    const def = result.resultType === 'input_required' ? 'InputRequiredResult' : RESULT_DEF[method];
    if (def) expectValid(revision, def, result);
  }
}

export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [MetaKey.ProtocolVersion]: MODERN,
    [MetaKey.ClientInfo]: { name: 'test-client', version: '1.0.0' },
    [MetaKey.ClientCapabilities]: { sampling: {}, elicitation: {}, roots: {} },
    ...extra,
  };
}

export interface StatelessCall {
  response: JSONRPCResponse;
  notifications: JSONRPCNotification[];
}

let nextId = 1;

/** One 2026-07-28 request through the seam the transports use; the response and notifications are validated. */
export async function stateless(
  server: McpServer,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    meta?: Record<string, unknown>;
    signal?: AbortSignal;
    extra?: Record<string, unknown>;
    raw?: boolean;
  } = {},
): Promise<StatelessCall> {
  const request: JSONRPCRequest = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: options.raw ? params : { ...params, _meta: modernMeta(options.meta) },
  };
  const notifications: JSONRPCNotification[] = [];
  const response = await statelessSeam(server).handleStatelessRequest(request, {
    signal: options.signal ?? new AbortController().signal,
    notify: (notification) => {
      validateEmitted(MODERN, notification);
      notifications.push(notification);
    },
    ...(options.extra ? { extra: options.extra } : {}),
  });
  expect(response.id).toBe(request.id);
  validateEmitted(MODERN, response, method);
  return { response, notifications };
}

/** The result of a stateless call, failing the test on an error response. */
export async function modernResult(
  server: McpServer,
  method: string,
  params: Record<string, unknown> = {},
  options: Parameters<typeof stateless>[3] = {},
): Promise<Record<string, unknown>> {
  const { response } = await stateless(server, method, params, options);
  if ('error' in response) throw new Error(`unexpected error ${JSON.stringify(response.error)}`);
  return response.result;
}

export async function modernError(
  server: McpServer,
  method: string,
  params: Record<string, unknown> = {},
  options: Parameters<typeof stateless>[3] = {},
): Promise<{ code: number; message: string; data?: unknown }> {
  const { response } = await stateless(server, method, params, options);
  if (!('error' in response)) throw new Error(`expected an error, got ${JSON.stringify(response.result)}`);
  return response.error;
}

export interface LegacyClient {
  connection: Connection;
  session: ServerSession;
  revision: string;
  initializeResult: Record<string, unknown>;
  notifications: JSONRPCNotification[];
  /** Server messages that failed the revision's schema (tests assert it stays empty). */
  schemaErrors: string[];
  close(): Promise<void>;
}

type ClientHandler = (
  params: Record<string, unknown> | undefined,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A handshake-era client over an in-memory pair, initialized at `revision`. */
export async function legacyClient(
  server: McpServer,
  options: {
    revision?: string;
    capabilities?: Record<string, unknown>;
    handlers?: Record<string, ClientHandler>;
  } = {},
): Promise<LegacyClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let revision = options.revision ?? '2025-11-25';
  const pendingMethods = new Map<unknown, string>();
  // Every server-to-client message is checked against the negotiated revision's schema.
  const send = serverSide.send.bind(serverSide);
  const schemaErrors: string[] = [];
  serverSide.send = async (message: JSONRPCMessage) => {
    const method = 'id' in message && !('method' in message) ? pendingMethods.get(message.id) : undefined;
    const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
    // The initialize response is checked against the revision it negotiates.
    const against =
      method === 'initialize' && typeof result?.protocolVersion === 'string'
        ? result.protocolVersion
        : revision;
    try {
      validateEmitted(against, message, method);
    } catch (error) {
      schemaErrors.push((error as Error).message);
    }
    return send(message);
  };
  const clientSend = clientSide.send.bind(clientSide);
  clientSide.send = async (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) pendingMethods.set(message.id, message.method);
    return clientSend(message);
  };
  const session = await server.connect(serverSide);
  const connection = new Connection(clientSide, { hooks: mcpHooks });
  const notifications: JSONRPCNotification[] = [];
  for (const method of Object.keys(NOTIFICATION_DEF)) {
    connection.setNotificationHandler(method, (params) => {
      notifications.push(
        params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      );
    });
  }
  for (const [method, handler] of Object.entries(options.handlers ?? {})) {
    connection.setRequestHandler(method, (params) => handler(params));
  }
  await connection.start();
  const initializeResult = await connection.request('initialize', {
    protocolVersion: revision,
    capabilities: options.capabilities ?? {},
    clientInfo: { name: 'legacy-test-client', version: '1.0.0' },
  });
  revision = String(initializeResult.protocolVersion);
  await connection.notify('notifications/initialized');
  return {
    connection,
    session,
    revision,
    initializeResult,
    notifications,
    schemaErrors,
    close: () => connection.close(),
  };
}

/** Resolves when `predicate` holds, polling briefly; fails after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 2000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
