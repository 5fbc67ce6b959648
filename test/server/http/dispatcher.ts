/**
 * A minimal MCP server implementing the HTTP transport's HttpMcpServer contract (handleStatelessRequest /
 * connect / isStatelessRequest / toolInputSchema), so the HTTP layer is tested on its own terms. It records what reached it, which is how the
 * tests prove that a rejected request never ran.
 */
import { Connection } from '../../../src/jsonrpc/connection.js';
import { ErrorCode, RpcError, toWireError } from '../../../src/jsonrpc/errors.js';
import type { JSONRPCRequest, JSONRPCResponse } from '../../../src/jsonrpc/messages.js';
import type { MessageExtra, Transport } from '../../../src/jsonrpc/transport.js';
import { mcpHooks } from '../../../src/mcp/hooks.js';
import { MetaKey } from '../../../src/mcp/meta.js';
import type { StatelessRequestContext } from '../../../src/mcp/request-context.js';
import { negotiateHandshakeVersion } from '../../../src/mcp/revisions.js';
import type { HttpMcpServer, ServerSessionHandle } from '../../../src/transports/http/server/types.js';

export const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  {
    name: 'route',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        shard: { type: 'integer', 'x-mcp-header': 'Shard' },
        dryRun: { type: 'boolean', 'x-mcp-header': 'DryRun' },
        nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
      },
    },
  },
  { name: 'progress', inputSchema: { type: 'object' } },
  { name: 'wait_for_cancel', inputSchema: { type: 'object' } },
  { name: 'elicit', inputSchema: { type: 'object' } },
  { name: 'reconnect', inputSchema: { type: 'object' } },
  { name: 'announce', inputSchema: { type: 'object' } },
] as const;

type Notify = (method: string, params: Record<string, unknown>) => void;

interface CallContext {
  signal: AbortSignal;
  notify: Notify;
  extra: MessageExtra | undefined;
  request?: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

export class TestServer implements HttpMcpServer {
  /** Every request that reached a handler: method and tool name. */
  readonly calls: Array<{ method: string; name?: unknown; arguments?: unknown }> = [];
  readonly cancelled: string[] = [];
  readonly sessions: Connection[] = [];
  readonly extras: Array<MessageExtra | undefined> = [];

  isStatelessRequest(message: JSONRPCRequest): boolean {
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    return message.method === 'server/discover' || (meta !== undefined && MetaKey.ProtocolVersion in meta);
  }

  toolInputSchema(name: string): unknown {
    return TOOLS.find((tool) => tool.name === name)?.inputSchema;
  }

  async handleStatelessRequest(
    request: JSONRPCRequest,
    context: StatelessRequestContext,
  ): Promise<JSONRPCResponse> {
    this.extras.push(context.extra);
    const notify: Notify = (method, params) => context.notify({ jsonrpc: '2.0', method, params });
    try {
      const result = await this.#dispatch(request.method, request.params ?? {}, {
        signal: context.signal,
        notify,
        extra: context.extra,
      });
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      return { jsonrpc: '2.0', id: request.id, error: toWireError(error) };
    }
  }

  async connect(transport: Transport): Promise<ServerSessionHandle> {
    const connection = new Connection(transport, { hooks: mcpHooks });
    this.sessions.push(connection);
    connection.setRequestHandler('initialize', (params) => {
      if (typeof params?.protocolVersion !== 'string')
        throw new RpcError(ErrorCode.InvalidParams, 'protocolVersion required');
      return {
        protocolVersion: negotiateHandshakeVersion(params.protocolVersion),
        capabilities: { tools: {} },
        serverInfo: { name: 'test-server', version: '1.0.0' },
      };
    });
    connection.setRequestHandler('ping', () => ({}));
    connection.setFallbackRequestHandler((method) => (params, ctx) => {
      this.extras.push(ctx.extra);
      return this.#dispatch(method, params ?? {}, {
        signal: ctx.signal,
        notify: (m, p) => void ctx.notify(m, p),
        extra: ctx.extra,
        request: (m, p) => ctx.request(m, p),
      });
    });
    await connection.start();
    return { close: () => connection.close() };
  }

  async #dispatch(
    method: string,
    params: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<Record<string, unknown>> {
    this.calls.push({ method, name: params.name, arguments: params.arguments });
    switch (method) {
      case 'server/discover':
        return { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete' };
      case 'tools/list':
        return { tools: TOOLS };
      case 'tools/call':
        return this.#callTool(params, ctx);
      default:
        throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }

  async #callTool(params: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
    const token = (params._meta as Record<string, unknown> | undefined)?.progressToken ?? 'p';
    switch (params.name) {
      case 'echo':
      case 'route':
        return { content: [{ type: 'text', text: JSON.stringify(params.arguments ?? {}) }] };
      case 'progress':
        for (let step = 1; step <= 3; step++) {
          ctx.notify('notifications/progress', { progressToken: token, progress: step, total: 3 });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return { content: [{ type: 'text', text: 'done' }] };
      case 'wait_for_cancel':
        ctx.notify('notifications/progress', { progressToken: token, progress: 0 });
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        this.cancelled.push('wait_for_cancel');
        return { content: [] };
      case 'elicit': {
        if (!ctx.request) throw new RpcError(ErrorCode.InvalidRequest, 'needs a session');
        const answer = await ctx.request('elicitation/create', {
          message: 'name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        });
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      }
      case 'reconnect': {
        ctx.notify('notifications/message', { level: 'info', data: 'before close' });
        (ctx.extra?.closeSSEStream as (() => void) | undefined)?.();
        await new Promise((resolve) => setTimeout(resolve, 100));
        ctx.notify('notifications/message', { level: 'info', data: 'after close' });
        return { content: [{ type: 'text', text: 'reconnected' }] };
      }
      case 'close_get':
        // SEP-1699: ends the connection of the session's GET stream; the call itself is answered as usual.
        (ctx.extra?.closeStandaloneSSEStream as (() => void) | undefined)?.();
        return { content: [{ type: 'text', text: 'closed' }] };
      case 'announce':
        // Unrelated to the request: goes to the session's GET stream.
        void this.sessions.at(-1)?.notify('notifications/tools/list_changed', {});
        return { content: [] };
      default:
        throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
    }
  }
}
