/**
 * The default `Connector`: one `McpClient` per server config. Stdio targets spawn the server; URL targets use
 * Streamable HTTP, legacy HTTP+SSE, or detection (Streamable HTTP first, then the SSE fallback the spec
 * describes) as the config's `type` says. List-changed events (of the lists the host exposes) and the
 * connection closing are passed to the host, which applies them between turns.
 */
import { type ClientHandlers, type ClientOptions, McpClient } from '../client/index.js';
import { capabilitiesFromHandlers } from '../client/input.js';
import { withTasksCapability } from '../extensions/tasks/client.js';
import { PACKAGE_VERSION } from '../util/version.js';
import type { ClientEvent, ConnectContext, Connector, HostClient } from './client-surface.js';
import type { ServerConfig } from './config.js';
import { oauthProviderFor } from './oauth.js';
import { withTaskCalls } from './task-client.js';

const CLIENT_INFO = { name: 'agentforge', version: PACKAGE_VERSION };
const FORWARDED: readonly ClientEvent[] = [
  'toolsListChanged',
  'resourcesListChanged',
  'promptsListChanged',
  'close',
];

/** What `clientConnector` adds to every client it opens. */
export interface ClientConnectorOptions {
  /** Request middleware of each client (agentforge/otel's `clientTracing()`). */
  readonly middleware?: ClientOptions['middleware'];
}

/** The default connector, with `options` applied to each client: `McpHost.start(config, { connector })`. */
export function clientConnector(connectorOptions: ClientConnectorOptions): Connector {
  return (config, context) => connectClient(config, context, connectorOptions);
}

export const mcpClientConnector: Connector = (config, context) => connectClient(config, context, {});

async function connectClient(
  config: ServerConfig,
  context: ConnectContext,
  connectorOptions: ClientConnectorOptions,
): Promise<HostClient> {
  const { target } = config;
  const { elicitation, sampling, task } = context.handlers;
  // Only what the host can answer is declared: the client derives its capabilities from these handlers.
  const handlers: ClientHandlers = {
    ...(elicitation ? { elicitation: (params, input) => elicitation(params, input.signal) } : {}),
    ...(sampling ? { sampling: (params, input) => sampling(params, input.signal) } : {}),
  };
  const options: ClientOptions = {
    clientInfo: CLIENT_INFO,
    handlers,
    // Extension wiring point: the host takes tasks (SEP-2663), on top of what its handlers can answer.
    capabilities: withTasksCapability(
      capabilitiesFromHandlers(handlers, config.protocolVersion ?? '2026-07-28'),
    ),
    signal: context.signal,
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.protocolVersion === undefined ? {} : { protocolVersion: config.protocolVersion }),
    ...(target.kind === 'http' ? { headers: { ...target.headers }, transport: target.mode } : {}),
  };
  if (context.onStderr) options.onstderr = context.onStderr;
  if (connectorOptions.middleware) options.middleware = connectorOptions.middleware;
  if (context.logLevel) options.logLevel = context.logLevel;
  const oauth = oauthProviderFor(config);
  if (oauth) options.oauth = oauth;
  const client =
    target.kind === 'stdio'
      ? await McpClient.connect(
          {
            command: target.command,
            args: [...target.args],
            ...(target.env ? { env: { ...target.env } } : {}),
            ...(target.cwd ? { cwd: target.cwd } : {}),
          },
          options,
        )
      : await McpClient.connect(target.url, options);
  if (context.signal.aborted) {
    await client.close();
    throw context.signal.reason;
  }
  // The client delivers list changes in every era (a subscriptions/listen stream of its own where the server
  // pushes nothing unasked); only the lists the host exposes are asked for.
  const forwarded = FORWARDED.filter(
    (event) =>
      (event !== 'resourcesListChanged' || config.expose.resources) &&
      (event !== 'promptsListChanged' || config.expose.prompts),
  );
  for (const event of forwarded) {
    if (event === 'close') client.on('close', ({ error }) => context.onEvent('close', error?.message));
    else client.on(event, () => context.onEvent(event));
  }
  const onLog = context.onLog;
  if (onLog) client.on('log', (message) => onLog(message));
  await client.listChangesReady();
  return withTaskCalls(client, handlers, task);
}
