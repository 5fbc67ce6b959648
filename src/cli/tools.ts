/** `agentforge tools list|call`: inspect and call tools without a model. */
import { parseArgs } from 'node:util';
import { partsToText, toResultParts } from '../agent/results.js';
import { describeServers } from './render.js';
import { isRecord } from '../util/record.js';
import { UsageError, openHost, stderrLogger } from './setup.js';

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  args: { type: 'string', short: 'a' },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export async function toolsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [action, llmName] = positionals;
  if (action !== 'list' && action !== 'call')
    throw new UsageError('usage: agentforge tools list|call --config <mcp.json>');
  if (action === 'call' && !llmName)
    throw new UsageError('usage: agentforge tools call --config <mcp.json> <llmName> [--args <json>]');
  const args = action === 'call' ? parseToolArgs(values.args) : {};
  const host = await openHost(values.config, { logger: stderrLogger(values.verbose) });
  try {
    if (action === 'list') return list(host, values.json);
    const tool = host.registry.get(llmName!);
    if (!tool) {
      process.stderr.write(
        `no tool named ${llmName}; try: agentforge tools list --config ${values.config}\n`,
      );
      return 1;
    }
    const result = await host.callTool(tool, args);
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else
      process.stdout.write(
        `${partsToText(toResultParts(result, { maxTextChars: Number.MAX_SAFE_INTEGER }))}\n`,
      );
    return result.isError ? 1 : 0;
  } finally {
    await host.close();
  }
}

function list(host: Awaited<ReturnType<typeof openHost>>, json: boolean): number {
  const tools = host.registry.entries();
  if (json) {
    const out = {
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
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  for (const line of describeServers(host)) process.stderr.write(`# ${line}\n`);
  for (const tool of tools) {
    const summary = tool.description.split('\n')[0] ?? '';
    process.stdout.write(`${tool.llmName}\t${tool.server}/${tool.mcpName}\t${summary}\n`);
  }
  return host.servers().some((s) => s.state === 'failed') ? 1 : 0;
}

function parseToolArgs(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new UsageError('--args must be a JSON object');
  return value;
}
