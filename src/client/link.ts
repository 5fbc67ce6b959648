/**
 * A link is one live transport plus the Connection on it: what a client talks through until it closes or is
 * restarted. Building one from a target (stdio command, URL, or a transport) lives here.
 */
import { Connection } from '../jsonrpc/connection.js';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/messages.js';
import type { SendOptions, Transport } from '../jsonrpc/transport.js';
import { mcpHooks } from '../mcp/hooks.js';
import { Method, Notification } from '../mcp/methods.js';
import { SseClientTransport } from '../transports/http/client/sse.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import { StdioClientTransport } from '../transports/stdio/client.js';
import type { Logger } from '../util/logger.js';
import type { ClientOptions, ConnectTarget, StdioTarget } from './types.js';
import type { Link, LinkKind } from './contracts.js';

const UNCANCELLABLE: ReadonlySet<string> = new Set([Method.Initialize, Method.Discover]);

/**
 * Forwards everything to the real transport and remembers the id of the last request sent: Connection.request
 * sends synchronously, so the caller reads the id of the request it just issued (subscriptions key on it). It
 * posts (Transport.post) only when the real transport does.
 */
class TapTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onpostfailed?: Transport['onpostfailed'];
  readonly post?: (message: JSONRPCMessage, options?: SendOptions) => string | undefined;
  lastRequestId: RequestId | undefined;
  readonly inner: Transport;
  /** Outstanding initialize and server/discover requests: never the subject of notifications/cancelled. */
  readonly #uncancellable = new Set<RequestId>();

  constructor(inner: Transport) {
    this.inner = inner;
    inner.onmessage = (message, extra) => {
      const id = (message as { id?: unknown } | null)?.id;
      if (this.#uncancellable.size > 0 && (typeof id === 'string' || typeof id === 'number'))
        this.#uncancellable.delete(id);
      this.onmessage?.(message, extra);
    };
    inner.onclose = (reason) => this.onclose?.(reason);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onpostfailed = (error, ids) => this.onpostfailed?.(error, ids);
    if (inner.post !== undefined) {
      this.post = (message, options) => (this.#passes(message) ? inner.post?.(message, options) : undefined);
    }
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.#passes(message) ? this.inner.send(message, options) : Promise.resolve();
  }

  /** Notes a request's id; false for a message not to send at all. */
  #passes(message: JSONRPCMessage): boolean {
    if ('method' in message && 'id' in message) {
      this.lastRequestId = message.id;
      if (UNCANCELLABLE.has(message.method)) this.#uncancellable.add(message.id);
    } else if ('method' in message && message.method === Notification.Cancelled) {
      // basic/lifecycle: initialize MUST NOT be cancelled; a timed-out probe of a presumably legacy server is
      // abandoned quietly rather than followed by a notification before its handshake.
      const id = message.params?.requestId as RequestId;
      if (this.#uncancellable.delete(id)) return false;
    }
    return true;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  cancelRequest(id: RequestId, reason: unknown): boolean {
    return this.inner.cancelRequest?.(id, reason) ?? false;
  }
}

export function isStdioTarget(target: ConnectTarget): target is StdioTarget {
  return (
    typeof target === 'object' &&
    !(target instanceof URL) &&
    'command' in target &&
    typeof target.command === 'string'
  );
}

function isTransport(target: ConnectTarget): target is Transport {
  return (
    typeof target === 'object' && !(target instanceof URL) && typeof (target as Transport).send === 'function'
  );
}

/** The server's identity for caches: the command line (stdio) or the endpoint URL without query (HTTP). */
export function targetKey(target: ConnectTarget): string {
  if (isStdioTarget(target))
    return `stdio:${JSON.stringify([target.command, target.args ?? [], target.cwd ?? ''])}`;
  if (typeof target === 'string' || target instanceof URL) {
    const url = new URL(target);
    return `http:${url.origin}${url.pathname}`;
  }
  return `transport:${Math.random().toString(36).slice(2)}`;
}

export function createTransport(
  target: ConnectTarget,
  kind: 'streamable-http' | 'sse' | undefined,
  options: ClientOptions,
  logger: Logger,
): { transport: Transport; kind: LinkKind } {
  if (isStdioTarget(target)) {
    const transport = new StdioClientTransport(target, {
      logger,
      ...(options.onstderr ? { onstderr: options.onstderr } : {}),
    });
    return { transport, kind: 'stdio' };
  }
  if (typeof target === 'string' || target instanceof URL) {
    const common = {
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
      // OAuth (agentforge/auth): the provider's token and DPoP proof on every HTTP request.
      ...(options.oauth ? { httpHeaders: options.oauth.headersFor.bind(options.oauth) } : {}),
      logger,
    };
    if (kind === 'sse') return { transport: new SseClientTransport(target, common), kind: 'sse' };
    return { transport: new StreamableHttpClientTransport(target, common), kind: 'streamable-http' };
  }
  if (isTransport(target)) return { transport: target, kind: 'custom' };
  throw new TypeError('connect target must be a stdio command, an HTTP URL or a Transport');
}

export function createLink(transport: Transport, kind: LinkKind, key: string, options: ClientOptions): Link {
  const tap = new TapTransport(transport);
  const connection = new Connection(tap, {
    hooks: mcpHooks,
    ...(options.timeoutMs !== undefined ? { defaultTimeoutMs: options.timeoutMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { kind, transport, connection, key, lastRequestId: () => tap.lastRequestId };
}
