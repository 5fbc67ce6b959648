/**
 * The 2026-07-28 codec: every request carries its version, capabilities and identity in `_meta`
 * (basic/index: _meta), an unsupported version is retried with one from the server's list (basic/versioning),
 * tools/call, prompts/get and resources/read may answer `input_required` (basic/patterns/mrtr, answered by the
 * client's input loop, src/client/input-loop.ts), and subscriptions are subscriptions/listen streams.
 */
import type { Connection, FailedRequest, Result } from '../jsonrpc/connection.js';
import { RpcError } from '../jsonrpc/errors.js';
import { serialisedOnce } from '../jsonrpc/serialise.js';
import { McpErrorCode } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { INPUT_REQUIRED_METHODS, Method } from '../mcp/methods.js';
import { statelessVersions } from '../mcp/revisions.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../mcp/types.js';
import { writeTrace } from './trace.js';
import { rethrowUnwrapped, unwrapError } from './failures.js';
import { listenWire } from './listen.js';
import type { ClientEraCodec, SubscriptionWire, WireRequestOptions } from './contracts.js';
import { WithFailure } from './wire-options.js';

/** The newest revision we speak that the server listed, if any. */
export function pickStatelessVersion(supported: unknown): string | undefined {
  if (!Array.isArray(supported)) return undefined;
  return statelessVersions().find((version) => supported.includes(version));
}

/** An UnsupportedProtocolVersionError's `supported` list, when the error is one. */
export function supportedVersionsOf(error: unknown): unknown[] | undefined {
  if (!(error instanceof RpcError) || error.code !== McpErrorCode.UnsupportedProtocolVersion)
    return undefined;
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported : undefined;
}

/**
 * Errors only a modern server sends (2026-07-28 basic/versioning: Backward Compatibility): version, header and
 * capability errors, and Invalid params complaining about the per-request `_meta`.
 */
export function isModernError(error: unknown): boolean {
  if (!(error instanceof RpcError)) return false;
  switch (error.code) {
    case McpErrorCode.UnsupportedProtocolVersion:
    case McpErrorCode.HeaderMismatch:
    case McpErrorCode.MissingRequiredClientCapability:
      return true;
    case McpErrorCode.InvalidParams: {
      const text = `${error.message} ${error.data === undefined ? '' : JSON.stringify(error.data)}`;
      return /_meta|io\.modelcontextprotocol\/|protocolVersion|clientCapabilities/i.test(text);
    }
    default:
      return false;
  }
}

export class StatelessCodec implements ClientEraCodec {
  readonly era = 'stateless' as const;
  readonly pingMethod = Method.Discover;
  readonly subscriptions: SubscriptionWire = listenWire;
  readonly #clientInfo: Implementation;
  readonly #capabilities: ClientCapabilities;
  readonly #logLevel: LoggingLevel | undefined;
  #version: string;
  /**
   * The `_meta` every request carries when the caller adds none: built once per version and shared by all
   * requests (it is only serialised), so a call allocates no meta object of its own. Deeply frozen, with its
   * JSON text made once (serialisedOnce): a transport that passes messages by reference cannot change what
   * later requests send, and a transport that serialises them does not serialise it again.
   */
  #baseMeta: Readonly<Record<string, unknown>>;

  constructor(
    version: string,
    clientInfo: Implementation,
    capabilities: ClientCapabilities,
    logLevel?: LoggingLevel,
  ) {
    this.#version = version;
    this.#clientInfo = clientInfo;
    this.#capabilities = capabilities;
    this.#logLevel = logLevel;
    this.#baseMeta = serialisedOnce(this.#buildMeta(undefined));
  }

  get version(): string {
    return this.#version;
  }

  set version(version: string) {
    if (version === this.#version) return;
    this.#version = version;
    this.#baseMeta = serialisedOnce(this.#buildMeta(undefined));
  }

  #buildMeta(
    callerMeta: Record<string, unknown> | undefined,
    capabilities: ClientCapabilities = this.#capabilities,
  ): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      ...callerMeta,
      [MetaKey.ProtocolVersion]: this.#version,
      [MetaKey.ClientCapabilities]: capabilities,
      [MetaKey.ClientInfo]: this.#clientInfo,
    };
    if (this.#logLevel) meta[MetaKey.LogLevel] = this.#logLevel;
    return meta;
  }

  /**
   * `options.clientCapabilities`: what this one request declares instead of the client's (a gateway forwarding
   * its caller's); `options` also carries the caller's trace.
   */
  withMeta(
    params: Record<string, unknown> | undefined,
    options?: WireRequestOptions,
  ): Record<string, unknown> {
    const callerMeta = params?._meta as Record<string, unknown> | undefined;
    // Object.assign, then a store: on Node 20 a spread with an extra property (`{ ...params, _meta }`)
    // takes a slow runtime path costing about a microsecond per call.
    const outgoing: Record<string, unknown> = Object.assign({}, params);
    const capabilities = options?.clientCapabilities;
    if (callerMeta === undefined && !options?.traceparent && !capabilities) {
      outgoing._meta = this.#baseMeta;
      return outgoing;
    }
    const meta = this.#buildMeta(callerMeta ?? {}, capabilities);
    if (options) writeTrace(meta, options);
    outgoing._meta = meta;
    return outgoing;
  }

  /**
   * One request; an UnsupportedProtocolVersionError listing a version we speak is retried once with it. The
   * retry is the connection's `onfailure`, one function for every request: a call in flight holds no promise
   * or reaction of the codec's.
   */
  send(
    connection: Connection,
    method: string,
    params: Record<string, unknown> | undefined,
    options: WireRequestOptions,
    tag?: unknown,
  ): Promise<Result> {
    return connection.requestTagged(method, this.withMeta(params, options), this.#retrying.for(options), tag);
  }

  readonly #retrying = new WithFailure((error, failed) => this.#retry(error, failed));

  #retry(error: unknown, failed: FailedRequest): Promise<Result> {
    const next = pickStatelessVersion(supportedVersionsOf(error));
    if (next === undefined) throw unwrapError(error);
    const sent = failed.params?._meta;
    const base = this.#baseMeta;
    this.version = next;
    const params: Record<string, unknown> = Object.assign({}, failed.params);
    params._meta = sent === base ? this.#baseMeta : { ...(sent as object), [MetaKey.ProtocolVersion]: next };
    return failed.resend(params, { ...failed.options, onfailure: rethrowUnwrapped });
  }

  callerParams(sent: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (sent === undefined || sent._meta !== this.#baseMeta) return sent;
    const params: Record<string, unknown> = Object.assign({}, sent);
    delete params._meta;
    return params;
  }

  answersInput(method: string): boolean {
    return INPUT_REQUIRED_METHODS.has(method);
  }

  /** The log level travels in every request's `_meta` (basic/utilities/logging): nothing to send. */
  async afterConnect(): Promise<void> {}
}
