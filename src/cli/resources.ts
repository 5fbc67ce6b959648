/** `agentforge resources list|read`: the servers' resources, without a model. */
import { parseArgs } from 'node:util';
import type { McpHost } from '../agent/host.js';
import type { ReadResourceResult } from '../mcp/types.js';
import { CliFailure, EXIT, UsageError, serverFailure } from './errors.js';
import { INSPECT_OPTIONS, openForInspection, printJson, reportUnusable, requireServer } from './inspect.js';
import { didYouMean } from './suggest.js';

export const RESOURCES_OPTIONS = {
  ...INSPECT_OPTIONS,
  server: { type: 'string', short: 's' },
} as const;

export async function resourcesCommand(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: RESOURCES_OPTIONS,
    allowPositionals: true,
  });
  const [action, uri, ...extra] = positionals;
  if (action !== 'list' && action !== 'read')
    throw new UsageError('usage: agentforge resources list|read [--config <mcp.json>]');
  if (action === 'read' && !uri)
    throw new UsageError('usage: agentforge resources read <uri> [--server <name>]');
  if (extra.length > 0 || (action === 'list' && uri))
    throw new UsageError(`unexpected argument "${extra[0] ?? uri}"`);
  const host = await openForInspection(values, signal);
  try {
    if (values.server !== undefined) requireServer(host, values.server);
    if (action === 'list') return await list(host, values.server, values.json);
    const server = values.server ?? (await serverOf(host, uri!));
    let result: ReadResourceResult;
    try {
      result = await host.readResource(server, uri!, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new CliFailure(serverFailure(server, `resources/read ${uri}`, error));
    }
    if (values.json) printJson(result);
    else printContents(result);
    return EXIT.ok;
  } finally {
    await host.close();
  }
}

async function list(host: McpHost, server: string | undefined, json: boolean): Promise<number> {
  const resources = await host.listResources(server);
  if (json) printJson({ servers: host.servers(), resources });
  else {
    for (const { server: name, resource } of resources) {
      const about = resource.description?.split('\n')[0] ?? '';
      process.stdout.write(
        `${name}\t${resource.uri}\t${resource.name}\t${resource.mimeType ?? ''}\t${about}\n`,
      );
    }
  }
  return server === undefined ? reportUnusable(host, 'resources') : EXIT.ok;
}

/** The server that lists this URI; with one server connected, that one (it may serve a template). */
async function serverOf(host: McpHost, uri: string): Promise<string> {
  const listed = await host.listResources();
  const owners = [...new Set(listed.filter((r) => r.resource.uri === uri).map((r) => r.server))];
  if (owners.length === 1) return owners[0]!;
  if (owners.length > 1)
    throw new UsageError(
      `${owners.map((o) => `"${o}"`).join(' and ')} both list ${uri}: pass --server <name>`,
    );
  const ready = host.servers().filter((s) => s.state === 'ready');
  if (ready.length === 1) return ready[0]!.name;
  const uris = listed.map((r) => r.resource.uri);
  throw new CliFailure(
    `no server lists ${uri}${didYouMean(uri, uris)}; pass --server <name> for a templated URI`,
  );
}

/** Text as it is; a binary blob by its size and type (`--json` has the base64). */
function printContents(result: ReadResourceResult): void {
  for (const content of result.contents) {
    if ('text' in content)
      process.stdout.write(content.text.endsWith('\n') ? content.text : `${content.text}\n`);
    else {
      const bytes = Math.floor((content.blob.length * 3) / 4);
      process.stdout.write(
        `[${content.mimeType ?? 'binary'} ${content.uri}, about ${bytes} bytes; --json shows it]\n`,
      );
    }
  }
}
