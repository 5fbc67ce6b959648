/**
 * Forwarding one downstream request to its upstream: authorization and rate limits first, then the call on the
 * right connection (the host's shared one, or the principal's own), with progress, logs, cancellation and input
 * requests relayed through the bridge, and an audit record at the end. An upstream that is down, slow or gone
 * mid-call becomes a clear error for this request only.
 */
import type { McpHost } from '../agent/host.js';
import type { RegisteredTool } from '../agent/registry.js';
import type { ServerConfig } from '../agent/config.js';
import type { ToolCallOptions } from '../agent/client-surface.js';
import type { McpClient } from '../client/client.js';
import { LocalError, RpcError } from '../jsonrpc/errors.js';
import { McpErrorCode } from '../mcp/errors.js';
import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult } from '../mcp/types.js';
import { progressTokenOf } from '../server/context.js';
import { InputRequiredSignal } from '../server/input.js';
import { readResultType } from '../mcp/result-type.js';
import type { JSONObject } from '../mcp/types.js';
import type { HandlerContext } from '../server/types.js';
import { isoNow } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Bridge, Exchange } from './bridge.js';
import { subjectTokenOf } from './subject-token.js';
import {
  type GatewayAuditEntry,
  type GatewayAuditSink,
  RATE_LIMITED,
  type RateLimiter,
  type ToolPolicy,
} from './governance.js';
import { type ReadCache, cacheClock } from './response-cache.js';
import { RelayedTask, type TaskRelay } from './tasks.js';
import { PrincipalPool } from './upstreams.js';

/** JSON-RPC error code of a request the caller's policy does not allow (implementation-defined range). */
export const FORBIDDEN = -32003;

export interface ForwarderDeps {
  readonly host: McpHost;
  readonly bridge: Bridge;
  /** Read per request: a reload replaces them. */
  readonly governance: { policy: ToolPolicy; limiter: RateLimiter };
  readonly pool: PrincipalPool;
  readonly perPrincipal: ReadonlySet<string>;
  readonly audit: GatewayAuditSink | undefined;
  readonly logger: Logger;
  readonly tasks: TaskRelay;
  /** Fresh upstream reads, served again within their ttlMs to whom their cacheScope allows. */
  readonly reads: ReadCache;
}

type Method = GatewayAuditEntry['method'];

interface Target {
  readonly method: Method;
  /** The downstream name (tool, prompt) or URI. */
  readonly name: string;
  readonly server: string;
  readonly upstreamName: string;
}

export class Forwarder {
  readonly #deps: ForwarderDeps;

  constructor(deps: ForwarderDeps) {
    this.#deps = deps;
  }

  async callTool(
    name: string,
    tool: RegisteredTool,
    args: Record<string, unknown>,
    context: HandlerContext,
  ): Promise<CallToolResult> {
    const target: Target = { method: 'tools/call', name, server: tool.server, upstreamName: tool.mcpName };
    const admitting = this.#admit(target, context);
    if (admitting) await admitting;
    const { host } = this.#deps;
    const wantsProgress = progressTokenOf(context.meta) !== undefined;
    const traceparent = traceOf(context);
    try {
      const result = await this.#run(target, context, args, (exchange, client) => {
        // Built with assignments: a hook is set only when the caller asked for it (no progress relay per call).
        const options: { -readonly [K in keyof ToolCallOptions]: ToolCallOptions[K] } = {
          signal: exchange.controller.signal,
          clientCapabilities: context.clientCapabilities,
          handlers: exchange.handlers,
        };
        if (traceparent !== undefined) options.traceparent = traceparent;
        if (wantsProgress) options.onprogress = (p) => exchange.progress(p);
        if (!client) return host.callTool(tool, args, options);
        const timeoutMs = this.#config(tool.server)?.timeoutMs;
        if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
        return client.callTool({ name: tool.mcpName, arguments: args }, options);
      });
      return readResultType(result) === 'task'
        ? await this.#taskCreated(tool.server, result, context)
        : result;
    } catch (error) {
      // A tool the upstream could not run is the tool's error (the model reads it); protocol errors stay.
      if (error instanceof RpcError || error instanceof InputRequiredSignal) throw error;
      return { content: [{ type: 'text', text: upstreamFailure(tool.server, error) }], isError: true };
    }
  }

  async getPrompt(
    target: Omit<Target, 'method'>,
    args: Record<string, string>,
    context: HandlerContext,
  ): Promise<GetPromptResult> {
    const full: Target = { method: 'prompts/get', ...target };
    const admitting = this.#admit(full, context);
    if (admitting) await admitting;
    return this.#protocolErrors(full.server, () =>
      this.#run(full, context, args, (exchange, client) =>
        (client ?? this.#shared(full.server)).getPrompt(
          { name: full.upstreamName, arguments: args },
          {
            signal: exchange.controller.signal,
            clientCapabilities: context.clientCapabilities,
            handlers: exchange.handlers,
            ...traceContext(context),
          },
        ),
      ),
    );
  }

  async readResource(target: Omit<Target, 'method'>, context: HandlerContext): Promise<ReadResourceResult> {
    const full: Target = { method: 'resources/read', ...target };
    const admitting = this.#admit(full, context);
    if (admitting) await admitting;
    // Only after policy and rate limits: a cached answer is still a request the caller must be allowed.
    const started = performance.now();
    const { reads } = this.#deps;
    const cached = await reads.lookup(full.server, full.upstreamName, context.principal);
    if (cached) {
      this.#record(full, context, 'ok', started, undefined, false, true);
      return cached;
    }
    let upstream: McpClient | undefined;
    let round: Exchange | undefined;
    // Taken before the request leaves: an update notified while it is in flight makes its answer stale.
    const sentAt = cacheClock();
    const result = await this.#protocolErrors(full.server, () =>
      this.#run(full, context, { uri: full.name }, (exchange, client) => {
        upstream = client ?? this.#shared(full.server);
        round = exchange;
        return upstream.readResource(
          { uri: full.upstreamName },
          {
            signal: exchange.controller.signal,
            clientCapabilities: context.clientCapabilities,
            handlers: exchange.handlers,
            ...traceContext(context),
          },
        );
      }),
    );
    // Not awaited: the caller has its answer; a store that fails was warned about and is a later miss. A read
    // that asked for input is not stored (server/utilities/caching: MRTR retries MUST NOT be cached).
    if (upstream && !round?.asked) {
      const stored = { server: full.server, uri: full.upstreamName, principal: context.principal, sentAt };
      void reads.store(stored, upstream.protocolVersion, result);
    }
    return result;
  }

  /** An upstream answered with a CreateTaskResult (SEP-2663): handed on to a caller that asked for tasks. */
  async #taskCreated(
    server: string,
    result: CallToolResult,
    context: HandlerContext,
  ): Promise<CallToolResult> {
    if (!(context.task instanceof RelayedTask)) {
      const text = `upstream ${server}: answered with a task, which this caller did not ask for`;
      return { content: [{ type: 'text', text }], isError: true };
    }
    const { _meta: _, ...upstream } = result as unknown as JSONObject;
    context.task.created = await this.#deps.tasks.created(upstream, { server, principal: context.principal });
    // Replaced by the CreateTaskResult in the relay's tools/call hook.
    return { content: [] };
  }

  /**
   * completion/complete, on the shared connection: suggestions carry no user's data (a server that needs the
   * caller's credentials to complete offers none through the gateway).
   */
  async complete(server: string, params: Record<string, unknown>): Promise<string[]> {
    const upstream = this.#deps.host.client(server) as McpClient | undefined;
    if (upstream?.serverCapabilities?.completions === undefined) return [];
    const result: CompleteResult = await upstream.complete(params);
    return Array.isArray(result.completion?.values) ? result.completion.values : [];
  }

  /**
   * The connection a server's requests for `principal` go on: the caller's own (per-principal servers) or the
   * shared one. Task requests use it too, whichever instance handed the task out.
   */
  async connectionFor(
    server: string,
    principal: string | undefined,
    auth?: unknown,
  ): Promise<McpClient | undefined> {
    return (
      (await this.#clientFor(server, principal, auth)) ??
      (this.#deps.host.client(server) as McpClient | undefined)
    );
  }

  /** The host's client for a server, as an McpClient (the gateway's connector opens nothing else). */
  #shared(server: string): McpClient {
    const client = this.#deps.host.client(server) as McpClient | undefined;
    if (!client) {
      const state = this.#deps.host.servers().find((s) => s.name === server)?.state ?? 'unknown';
      throw new LocalError('not_connected', `server ${server} is not connected (${state})`);
    }
    return client;
  }

  #config(server: string): ServerConfig | undefined {
    return this.#deps.host.config.servers.find((s) => s.name === server);
  }

  /**
   * Policy and rate limits; a refusal is audited and thrown as a JSON-RPC error before anything is sent. A
   * promise only when the rate limits are shared (the buckets are in Redis).
   */
  #admit(target: Target, context: HandlerContext): void | Promise<void> {
    const { policy, limiter } = this.#deps.governance;
    const caller = { principal: context.principal, auth: context.auth };
    if (target.method === 'tools/call' && !policy.allows(caller, target.name)) {
      this.#record(target, context, 'denied', 0, 'not allowed by policy');
      throw new RpcError(FORBIDDEN, `not allowed to call tool ${target.name}`);
    }
    const limited = (error: unknown): never => {
      if (error instanceof RpcError && error.code === RATE_LIMITED)
        this.#record(target, context, 'rate_limited', 0, error.message);
      throw error;
    };
    try {
      return limiter.take(context.principal, target.name)?.catch(limited);
    } catch (error) {
      return limited(error);
    }
  }

  /** `auth`: the caller's, whose kept token (if any) a token exchange may need to open the connection. */
  #clientFor(server: string, principal: string | undefined, auth?: unknown): Promise<McpClient> | undefined {
    const { pool, perPrincipal } = this.#deps;
    if (!perPrincipal.has(server)) return undefined;
    return this.#principalClient(pool, server, principal, auth);
  }

  async #principalClient(
    pool: PrincipalPool,
    server: string,
    principal: string | undefined,
    auth: unknown,
  ): Promise<McpClient> {
    if (principal === undefined)
      throw new RpcError(
        FORBIDDEN,
        `server ${server} takes each caller's own credentials: authenticate first`,
      );
    const config = this.#config(server);
    if (!config) throw new LocalError('not_connected', `no server named ${server}`);
    try {
      const subjectToken = subjectTokenOf(auth);
      return await pool.client(config, principal, subjectToken === undefined ? {} : { subjectToken });
    } catch (error) {
      throw new RpcError(FORBIDDEN, upstreamFailure(server, error));
    }
  }

  async #run<T extends CallToolResult | GetPromptResult | ReadResourceResult>(
    target: Target,
    context: HandlerContext,
    args: unknown,
    call: (exchange: Exchange, client: McpClient | undefined) => Promise<T>,
  ): Promise<T> {
    const started = this.#deps.audit ? performance.now() : 0;
    // Awaited only for a per-principal server: a shared connection costs no extra turn of the microtask queue.
    const pending = this.#clientFor(target.server, context.principal, context.auth);
    const client = pending === undefined ? undefined : await pending;
    const connection =
      client && context.principal !== undefined
        ? PrincipalPool.key(target.server, context.principal)
        : target.server;
    try {
      const result = await this.#deps.bridge.forward(
        context,
        connection,
        { method: target.method, name: target.name, arguments: args },
        (exchange) => call(exchange, client),
      );
      const isError = (result as CallToolResult).isError === true;
      this.#record(target, context, isError ? 'error' : 'ok', started, undefined, isError);
      return result;
    } catch (error) {
      if (error instanceof InputRequiredSignal) throw error;
      if (client && isLinkFailure(error)) this.#deps.pool.discard(target.server, context.principal!);
      this.#record(target, context, 'error', started, upstreamFailure(target.server, error), true);
      throw error;
    }
  }

  async #protocolErrors<T>(server: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof RpcError || error instanceof InputRequiredSignal) throw error;
      throw new RpcError(McpErrorCode.InternalError, upstreamFailure(server, error));
    }
  }

  #record(
    target: Target,
    context: HandlerContext,
    status: GatewayAuditEntry['status'],
    started: number,
    error?: string,
    isError = status !== 'ok',
    cached = false,
  ): void {
    const sink = this.#deps.audit;
    if (!sink) return;
    const entry: GatewayAuditEntry = {
      ts: isoNow(),
      principal: context.principal ?? null,
      method: target.method,
      name: target.name,
      server: target.server,
      upstreamName: target.upstreamName,
      status,
      isError,
      ...(error === undefined ? {} : { error }),
      ...(cached ? { cached } : {}),
      durationMs: started === 0 ? 0 : Math.round(performance.now() - started),
    };
    Promise.resolve()
      .then(() => sink(entry))
      .catch((failure: unknown) => this.#deps.logger.warn('audit sink failed', failure));
  }
}

/** W3C Trace Context `traceparent` (version 00): only a well-formed one is carried upstream. */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The caller's trace context, for the upstream request: one trace across the hop. */
function traceOf(context: HandlerContext): string | undefined {
  const traceparent = context.meta?.traceparent;
  return typeof traceparent === 'string' && TRACEPARENT.test(traceparent) ? traceparent : undefined;
}

function traceContext(context: HandlerContext): { traceparent?: string } {
  const traceparent = traceOf(context);
  return traceparent === undefined ? {} : { traceparent };
}

function upstreamFailure(server: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `upstream ${server}: ${message}`;
}

function isLinkFailure(error: unknown): boolean {
  return (
    error instanceof LocalError &&
    ['connection_closed', 'process_exited', 'transport_error'].includes(error.code)
  );
}
