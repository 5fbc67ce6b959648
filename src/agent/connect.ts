/**
 * The default `Connector`: one `McpClient` per server config. Stdio targets spawn the server; URL targets use
 * Streamable HTTP, legacy HTTP+SSE, or detection (Streamable HTTP first, then the SSE fallback the spec
 * describes) as the config's `type` says. List-changed notifications and the connection closing are passed
 * to the host, which applies them between turns.
 */
import { McpClient } from '../client/index.js';
import type { ClientEvent, ConnectContext, Connector } from './client-surface.js';
import type { ServerConfig } from './config.js';

const CLIENT_INFO = { name: 'agentforge', version: '0.1.0' };
const FORWARDED: readonly ClientEvent[] = ['toolsListChanged', 'resourcesListChanged', 'promptsListChanged', 'close'];

export const mcpClientConnector: Connector = async (config: ServerConfig, context: ConnectContext) => {
  const { target } = config;
  const handlers = {
    ...(context.handlers.elicitation
      ? { elicitation: (params: any, input: { signal: AbortSignal }) => context.handlers.elicitation!(params, input.signal) }
      : {}),
    ...(context.handlers.sampling
      ? { sampling: (params: any, input: { signal: AbortSignal }) => context.handlers.sampling!(params, input.signal) }
      : {}),
  };
  const options = {
    clientInfo: CLIENT_INFO,
    handlers,
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(target.kind === 'http' ? { headers: { ...target.headers }, transport: target.mode } : {}),
  };
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
  for (const event of FORWARDED) client.on(event, () => context.onEvent(event));
  // 2026-07-28 basic/patterns/subscriptions: stateless servers push list changes only on a listen stream.
  const capabilities = client.serverCapabilities ?? {};
  if (client.era === 'stateless') {
    const filter = {
      ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities.resources?.listChanged && config.expose.resources ? { resourcesListChanged: true } : {}),
      ...(capabilities.prompts?.listChanged && config.expose.prompts ? { promptsListChanged: true } : {}),
    };
    if (Object.keys(filter).length > 0) await client.subscribe(filter, () => undefined);
  }
  return client;
};
