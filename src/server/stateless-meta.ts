/**
 * What a 2026-07-28 request carries for the server to read before dispatch: its `_meta` (basic/index) and, on an
 * MRTR retry, its answers (basic/patterns/mrtr).
 */
import type { MessageExtra } from '../jsonrpc/transport.js';
import { invalidParams, unsupportedProtocolVersion } from '../mcp/errors.js';
import { MetaKey } from '../mcp/meta.js';
import { Method } from '../mcp/methods.js';
import { eraOf, isSupportedVersion, statelessVersions } from '../mcp/revisions.js';
import {
  type ClientCapabilities,
  type Implementation,
  type JSONObject,
  LOGGING_LEVELS,
  type LoggingLevel,
} from '../mcp/types.js';
import type { ServerCore } from './core.js';
import { type RequestStateBinding, type RequestStatePayload, principalOf } from './request-state.js';
import { isSerialisedOnce } from '../jsonrpc/serialise.js';
import { isRecord } from '../util/record.js';

const MAX_INPUT_RESPONSES = 64;

export interface RequestMeta {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

/** 2026-07-28 basic/index: every request's `_meta` carries protocolVersion and clientCapabilities. */
export function readMeta(params: JSONObject | undefined): RequestMeta {
  const meta = params?._meta;
  if (!isRecord(meta))
    throw invalidParams(`Missing _meta: every request must carry ${MetaKey.ProtocolVersion}`);
  const protocolVersion = meta[MetaKey.ProtocolVersion];
  if (typeof protocolVersion !== 'string') throw invalidParams(`Missing _meta["${MetaKey.ProtocolVersion}"]`);
  const clientCapabilities = meta[MetaKey.ClientCapabilities];
  if (!isRecord(clientCapabilities)) throw invalidParams(`Missing _meta["${MetaKey.ClientCapabilities}"]`);
  if (!isSupportedVersion(protocolVersion) || eraOf(protocolVersion) !== 'stateless') {
    throw unsupportedProtocolVersion(protocolVersion, statelessVersions());
  }
  const info = meta[MetaKey.ClientInfo];
  const level = meta[MetaKey.LogLevel];
  return {
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    clientInfo: isRecord(info) ? (info as unknown as Implementation) : undefined,
    logLevel: LOGGING_LEVELS.includes(level as LoggingLevel) ? (level as LoggingLevel) : undefined,
  };
}

/**
 * readMeta, read once for a `_meta` that comes again: the stdio reader hands every request that repeats its
 * client's `_meta` the same deeply frozen copy of JSON data (src/jsonrpc/repeated-meta.ts), whose members cannot
 * change, so what was read from it (and checked) holds. Any other `_meta` is read as it comes.
 */
export class MetaReader {
  #last: object | undefined;
  #read: RequestMeta | undefined;

  read(params: JSONObject | undefined): RequestMeta {
    const meta = params?._meta;
    if (meta !== undefined && meta === this.#last) return this.#read as RequestMeta;
    const read = readMeta(params);
    if (isSerialisedOnce(meta)) {
      this.#last = meta as object;
      this.#read = read;
    }
    return read;
  }
}

/** What a requestState is bound to (basic/patterns/mrtr: Server Requirements). */
export function bindingOf(
  method: string,
  params: JSONObject | undefined,
  extra: MessageExtra | undefined,
): RequestStateBinding {
  const isRead = method === Method.ResourcesRead;
  return {
    method,
    name: String((isRead ? params?.uri : params?.name) ?? ''),
    // An omitted arguments object and an empty one are the same request.
    arguments: isRead ? null : (params?.arguments ?? {}),
    principal: principalOf(extra?.authInfo),
  };
}

/** The answers of a request that brings none. */
export const NO_INPUTS: Record<string, unknown> = Object.freeze({});

/** The answers an MRTR retry brings: this request's inputResponses, plus (winning) a verified requestState's. */
export function readInputs(
  core: ServerCore,
  method: string,
  params: JSONObject | undefined,
  extra: MessageExtra | undefined,
): { available: Record<string, unknown>; round: number; oneTime?: RequestStatePayload } {
  const responses = params?.inputResponses;
  if (responses !== undefined && !isRecord(responses))
    throw invalidParams('inputResponses must be an object');
  if (responses && Object.keys(responses).length > MAX_INPUT_RESPONSES)
    throw invalidParams('too many inputResponses');
  const state = params?.requestState;
  // The backend only reads the answers: the request's own object serves as is.
  if (state === undefined) return { available: responses ?? NO_INPUTS, round: 0 };
  if (typeof state !== 'string') throw invalidParams('requestState must be a string');
  const opened = core.sealer.open(state, bindingOf(method, params, extra));
  // Tampered, expired, foreign or replayed on another request: one answer for all, and the handler never runs.
  if (!opened) throw invalidParams('Invalid requestState');
  const available = { ...responses, ...opened.responses };
  return core.sealer.oneTime
    ? { available, round: opened.round, oneTime: opened }
    : { available, round: opened.round };
}
