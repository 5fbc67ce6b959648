import type { RequestId } from '../jsonrpc/messages.js';
import type { MessageExtra } from '../jsonrpc/transport.js';
import { Notification } from '../mcp/methods.js';
import { type Era, compareVersions } from '../mcp/revisions.js';
import {
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitResult,
  type Implementation,
  type InputRequest,
  type InputResponse,
  type JSONObject,
  type ListRootsResult,
  type LoggingLevel,
  type ProgressToken,
  passesLogLevel,
} from '../mcp/types.js';
import type { InputBackend } from './input.js';
import type { HandlerContext, InputOptions } from './types.js';

/** Everything a request carries that handlers and operations need, whatever its era. */
export interface RequestScope {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly requestId: RequestId;
  readonly signal: AbortSignal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly extra: MessageExtra | undefined;
  readonly meta: JSONObject | undefined;
  /** The log threshold: a level, 'all' (legacy session that never set one), or undefined (send none). */
  readonly logLevel: LoggingLevel | 'all' | undefined;
  readonly inputRound: number;
  readonly input: InputBackend;
  /** Sends a notification that belongs to this request (progress, log). */
  notify(method: string, params: JSONObject): Promise<void>;
}

const SHORT_NAMES: Record<InputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

export function progressTokenOf(meta: JSONObject | undefined): ProgressToken | undefined {
  const token = meta?.progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token))
    ? token
    : undefined;
}

export function createHandlerContext(scope: RequestScope): HandlerContext {
  const progressToken = progressTokenOf(scope.meta);
  const ordinals: Record<string, number> = {};
  // 2025-03-26 added `message` to progress notifications.
  const progressHasMessage = compareVersions(scope.protocolVersion, '2025-03-26') >= 0;

  const ask = async <T extends InputResponse>(
    request: InputRequest,
    options: InputOptions | undefined,
  ): Promise<T> => {
    const short = SHORT_NAMES[request.method];
    ordinals[short] = (ordinals[short] ?? 0) + 1;
    const key = options?.key ?? `${short}-${ordinals[short]}`;
    const answers = await scope.input.request({ [key]: request }, scope.signal);
    return answers[key] as T;
  };

  return {
    get signal() {
      return scope.signal;
    },
    era: scope.era,
    protocolVersion: scope.protocolVersion,
    requestId: scope.requestId,
    clientCapabilities: scope.clientCapabilities,
    clientInfo: scope.clientInfo,
    authInfo: scope.extra?.authInfo,
    extra: scope.extra,
    meta: scope.meta,
    inputRound: scope.inputRound,
    async progress(progress, total, message) {
      if (progressToken === undefined || scope.signal.aborted) return;
      const params: JSONObject = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined && progressHasMessage) params.message = message;
      await scope.notify(Notification.Progress, params).catch(() => {});
    },
    async log(level, data, logger) {
      const threshold = scope.logLevel;
      if (threshold === undefined || scope.signal.aborted) return;
      if (threshold !== 'all' && !passesLogLevel(level, threshold)) return;
      const params: JSONObject = logger === undefined ? { level, data } : { level, logger, data };
      await scope.notify(Notification.Message, params).catch(() => {});
    },
    elicit: (params, options) => ask<ElicitResult>({ method: 'elicitation/create', params }, options),
    sample: (params, options) =>
      ask<CreateMessageResult>({ method: 'sampling/createMessage', params }, options),
    listRoots: (options) => ask<ListRootsResult>({ method: 'roots/list', params: {} }, options),
    requestInput: (requests) =>
      scope.input.request(requests, scope.signal) as Promise<
        Record<keyof typeof requests & string, InputResponse>
      >,
  };
}
