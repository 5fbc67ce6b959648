/**
 * `agentforge gateway`: the configured servers served as one MCP server, over HTTP (every revision, HTTP+SSE
 * too) or stdio. Runs until SIGINT or SIGTERM, then closes every downstream session and upstream server. Its
 * config is reloaded when the file changes and on SIGHUP (as a daemon's is), keeping every session.
 */
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileAuditSink } from '../agent/audit.js';
import { JwtVerifier } from '../auth/server/jwt.js';
import { bearerAuth } from '../auth/server/bearer.js';
import { createGateway } from '../gateway/gateway.js';
import type { GatewayAuditEntry } from '../gateway/governance.js';
import { listenGateway } from '../gateway/http.js';
import { type GatewaySettings, parseGatewaySettings } from '../gateway/settings.js';
import { loadHostConfig, resolveConfigPath } from './discover.js';
import { EXIT, UsageError } from './errors.js';
import { onHangup } from './lifecycle.js';
import { gatewayTracingOptions } from './telemetry.js';
import { cliServerLogs, connectTimeout, stderrLogger } from './setup.js';

export const GATEWAY_OPTIONS = {
  config: { type: 'string', short: 'c' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  stdio: { type: 'boolean', default: false },
  timeout: { type: 'string' },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

const DEFAULT_PORT = 3000;

export async function gatewayCommand(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: GATEWAY_OPTIONS, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const port = values.port === undefined ? undefined : portOf(values.port);
  const path = await resolveConfigPath(values.config);
  const config = await loadHostConfig(path, signal);
  const settings = parseGatewaySettings(JSON.parse(await readFile(path, 'utf8')), config);
  // Each caller's own upstream credentials come from a server's `tokenExchange`, or from code
  // (createGateway's upstreamCredentials hook).
  if (settings.perPrincipal)
    throw new UsageError(
      'gateway.perPrincipal needs an upstreamCredentials hook: give the servers "tokenExchange", or serve it with createGateway from agentforge/gateway',
    );
  const logger = stderrLogger(values.verbose);
  const gateway = await createGateway({
    config,
    ...gatewayOptions(settings),
    // The file is watched: a reload may add policies.
    dynamicPolicies: true,
    upstream: {
      connectTimeoutMs: connectTimeout(values.timeout),
      serverLogs: cliServerLogs(values.verbose),
    },
    logger,
    // With OTEL_EXPORTER_OTLP_ENDPOINT: a SERVER span per caller request, a CLIENT span per upstream one.
    ...gatewayTracingOptions(),
  });
  try {
    if (values.stdio) {
      await gateway.serveStdio();
      await abortedOrClosed(signal, true);
      return EXIT.ok;
    }
    const host = values.host ?? settings.listen?.host ?? '127.0.0.1';
    const listening = await listenGateway(gateway, {
      port: port ?? settings.listen?.port ?? DEFAULT_PORT,
      host,
      ...(settings.auth ? { auth: authGuard(settings.auth) } : {}),
    });
    process.stdout.write(`${JSON.stringify({ url: listening.url, groups: gateway.groups })}\n`);
    const watching = watchConfig(path, async () => {
      const next = await loadHostConfig(path, signal);
      const nextSettings = parseGatewaySettings(JSON.parse(await readFile(path, 'utf8')), next);
      await gateway.reload(next, {
        ...(nextSettings.policies ? { policies: nextSettings.policies } : {}),
        ...(nextSettings.rateLimits ? { rateLimits: nextSettings.rateLimits } : {}),
        ...(nextSettings.required ? { required: nextSettings.required } : {}),
      });
      process.stderr.write(`config reloaded from ${path}\n`);
    });
    const releaseHangup = onHangup(() => watching.reload('SIGHUP'));
    for (const status of gateway.host.servers().filter((s) => s.state !== 'ready'))
      process.stderr.write(
        `server ${status.name}: ${status.state}${status.error ? ` (${status.error})` : ''}\n`,
      );
    await abortedOrClosed(signal);
    releaseHangup();
    watching.close();
    await listening.close();
    return EXIT.ok;
  } finally {
    await gateway.close();
  }
}

function gatewayOptions(settings: GatewaySettings) {
  return {
    ...(settings.prefix === undefined ? {} : { prefix: settings.prefix }),
    ...(settings.toolSearch === undefined ? {} : { toolSearch: settings.toolSearch }),
    ...(settings.policies ? { policies: settings.policies } : {}),
    ...(settings.rateLimits ? { rateLimits: settings.rateLimits } : {}),
    ...(settings.required ? { required: settings.required } : {}),
    ...(settings.audit ? { audit: fileAuditSink<GatewayAuditEntry>(settings.audit) } : {}),
  };
}

/** The downstream guard of `gateway.auth`; each caller's token is kept for token exchanges (hidden from handlers). */
function authGuard(auth: NonNullable<GatewaySettings['auth']>) {
  return (url: string) => {
    const resource = auth.resource ?? url;
    const verifier = new JwtVerifier({
      jwks: auth.jwksUrl,
      issuer: auth.issuer,
      audience: auth.audience ?? [resource],
    });
    return bearerAuth({
      resource,
      authorizationServers: [auth.issuer],
      verifier,
      // Kept for a token exchange, by a server that has `tokenExchange` now or after a reload; listenGateway
      // takes it off what handlers, policies and audit see (src/gateway/subject-token.ts).
      exposeToken: true,
      ...(auth.requiredScopes ? { requiredScopes: auth.requiredScopes } : {}),
    });
  };
}

/**
 * Calls `reload` after the config file changes (editors often replace it: the directory is watched), once per
 * burst of changes, and when asked (SIGHUP); one at a time. A config that fails to load is reported and the
 * running one kept.
 */
function watchConfig(
  path: string,
  reload: () => Promise<void>,
): { reload(why: string): void; close(): void } {
  const file = basename(path);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const queue = (): void => {
    running = running.then(() =>
      reload().catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        process.stderr.write(`config not reloaded (the running one is kept): ${reason}\n`);
      }),
    );
  };
  const watcher = watch(dirname(resolve(path)), (_event, name) => {
    if (name !== null && name.toString() !== file) return;
    clearTimeout(timer);
    timer = setTimeout(queue, 200);
  });
  return {
    reload(why) {
      process.stderr.write(`${why}: reloading ${path}\n`);
      queue();
    },
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}

function portOf(raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, not ${JSON.stringify(raw)}`);
  return port;
}

/** Until the command's signal aborts (SIGINT, SIGTERM) or, on stdio, the client closes stdin. */
function abortedOrClosed(signal: AbortSignal, stdin = false): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
    if (stdin) process.stdin.once('end', () => resolve());
  });
}
