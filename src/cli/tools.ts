/** `agentforge tools list|call`: inspect and call tools without a model. */
import { parseArgs } from 'node:util';
import { readProgress } from '../agent/call-events.js';
import type { McpHost } from '../agent/host.js';
import { partsToText, toResultParts } from '../agent/results.js';
import { CliFailure, EXIT, UsageError, serverFailure } from './errors.js';
import type { Activity } from './activity.js';
import {
  INSPECT_OPTIONS,
  inspectionDisplay,
  openForInspection,
  parseJsonObject,
  printJson,
  reportUnusable,
} from './inspect.js';
import { describeServers } from './render.js';
import { parseLogLevel, unusableServers } from './setup.js';
import { didYouMean } from './suggest.js';

export const TOOLS_OPTIONS = {
  ...INSPECT_OPTIONS,
  args: { type: 'string', short: 'a' },
  'log-level': { type: 'string' },
} as const;

export async function toolsCommand(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: TOOLS_OPTIONS, allowPositionals: true });
  const [action, llmName, ...extra] = positionals;
  if (action !== 'list' && action !== 'call')
    throw new UsageError('usage: agentforge tools list|call [--config <mcp.json>]');
  if (action === 'call' && !llmName)
    throw new UsageError("usage: agentforge tools call <llmName> [--args '<json>']");
  if (extra.length > 0 || (action === 'list' && llmName))
    throw new UsageError(`unexpected argument "${extra[0] ?? llmName}"`);
  const args = action === 'call' ? parseJsonObject(values.args) : {};
  const display = inspectionDisplay(parseLogLevel(values['log-level']));
  try {
    const host = await openForInspection(values, signal, display);
    try {
      if (action === 'list') return list(host, values.json);
      return await call(host, llmName!, args, values.json, display.activity, signal);
    } finally {
      await host.close();
    }
  } finally {
    display.activity.close();
  }
}

async function call(
  host: McpHost,
  llmName: string,
  args: Record<string, unknown>,
  json: boolean,
  activity: Activity,
  signal: AbortSignal,
): Promise<number> {
  const tool = host.registry.get(llmName);
  if (!tool) throw missingTool(host, llmName);
  let result: Awaited<ReturnType<McpHost['callTool']>>;
  activity.start('call', llmName);
  try {
    result = await host.callTool(tool, args, {
      signal,
      onprogress: (raw) => {
        const progress = readProgress(raw);
        if (progress) activity.progress('call', progress);
      },
      ontask: (task) =>
        activity.note('call', `task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new CliFailure(serverFailure(tool.server, `tools/call ${tool.mcpName}`, error));
  } finally {
    activity.end('call');
    activity.close();
  }
  if (json) printJson(result);
  else
    process.stdout.write(
      `${partsToText(toResultParts(result, { maxTextChars: Number.MAX_SAFE_INTEGER }))}\n`,
    );
  return result.isError ? EXIT.failure : EXIT.ok;
}

/** The tool's server did not connect, or the name is a typo of a real one. */
function missingTool(host: McpHost, llmName: string): Error {
  const down = unusableServers(host).find((s) => llmName.startsWith(`${s.name}__`));
  if (down)
    return new CliFailure(`server "${down.name}" ${down.reason}, so its tool ${llmName} is not available`);
  const names = host.registry.entries().map((t) => t.llmName);
  const others = unusableServers(host).map((s) => `"${s.name}"`);
  const note =
    others.length > 0 ? ` (server${others.length > 1 ? 's' : ''} ${others.join(', ')} did not connect)` : '';
  return new CliFailure(
    `no tool named "${llmName}"${didYouMean(llmName, names)}${note}; see agentforge tools list`,
  );
}

function list(host: McpHost, json: boolean): number {
  const tools = host.registry.entries();
  if (json) {
    printJson({
      servers: host.servers(),
      tools: tools.map((t) => ({
        llmName: t.llmName,
        server: t.server,
        mcpName: t.mcpName,
        kind: t.kind,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
    });
  } else {
    const ready = new Set(
      host
        .servers()
        .filter((s) => s.state === 'ready')
        .map((s) => s.name),
    );
    for (const line of describeServers(host)) {
      if (ready.has(line.slice(0, line.indexOf(':')))) process.stderr.write(`# ${line}\n`);
    }
    for (const tool of tools) {
      const summary = tool.description.split('\n')[0] ?? '';
      process.stdout.write(`${tool.llmName}\t${tool.server}/${tool.mcpName}\t${summary}\n`);
    }
  }
  return reportUnusable(host, 'tools');
}
