/** `agentforge prompts list|get`: the servers' prompts, without a model. */
import { parseArgs } from 'node:util';
import type { McpHost } from '../agent/host.js';
import type { GetPromptResult, Prompt } from '../mcp/types.js';
import { CliFailure, EXIT, UsageError, serverFailure } from './errors.js';
import {
  INSPECT_OPTIONS,
  openForInspection,
  parseJsonObject,
  printJson,
  reportUnusable,
  requireServer,
} from './inspect.js';
import { didYouMean } from './suggest.js';

export const PROMPTS_OPTIONS = {
  ...INSPECT_OPTIONS,
  server: { type: 'string', short: 's' },
  args: { type: 'string', short: 'a' },
} as const;

export async function promptsCommand(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: PROMPTS_OPTIONS, allowPositionals: true });
  const [action, name, ...extra] = positionals;
  if (action !== 'list' && action !== 'get')
    throw new UsageError('usage: agentforge prompts list|get [--config <mcp.json>]');
  if (action === 'get' && !name)
    throw new UsageError("usage: agentforge prompts get <name> [--args '<json>']");
  if (extra.length > 0 || (action === 'list' && name))
    throw new UsageError(`unexpected argument "${extra[0] ?? name}"`);
  const args = stringArguments(parseJsonObject(values.args));
  const host = await openForInspection(values, signal);
  try {
    if (values.server !== undefined) requireServer(host, values.server);
    const prompts = await host.listPrompts(values.server);
    if (action === 'list') return list(host, prompts, values.server === undefined, values.json);
    const server = values.server ?? ownerOf(prompts, name!);
    let result: GetPromptResult;
    try {
      result = await host.getPrompt(server, name!, args);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new CliFailure(serverFailure(server, `prompts/get ${name}`, error));
    }
    if (values.json) printJson(result);
    else printMessages(result);
    return EXIT.ok;
  } finally {
    await host.close();
  }
}

type Listed = Awaited<ReturnType<McpHost['listPrompts']>>;

function list(host: McpHost, prompts: Listed, every: boolean, json: boolean): number {
  if (json) printJson({ servers: host.servers(), prompts });
  else {
    for (const { server, prompt } of prompts) {
      const about = prompt.description?.split('\n')[0] ?? '';
      process.stdout.write(`${server}\t${prompt.name}\t${argumentList(prompt)}\t${about}\n`);
    }
  }
  return every ? reportUnusable(host, 'prompts') : EXIT.ok;
}

/** `topic*, style` (* = required). */
function argumentList(prompt: Prompt): string {
  return (prompt.arguments ?? []).map((a) => `${a.name}${a.required ? '*' : ''}`).join(', ');
}

function ownerOf(prompts: Listed, name: string): string {
  const owners = [...new Set(prompts.filter((p) => p.prompt.name === name).map((p) => p.server))];
  if (owners.length === 1) return owners[0]!;
  if (owners.length > 1)
    throw new UsageError(
      `${owners.map((o) => `"${o}"`).join(' and ')} both have a prompt ${name}: pass --server`,
    );
  const names = prompts.map((p) => p.prompt.name);
  throw new CliFailure(`no prompt named "${name}"${didYouMean(name, names)}; see agentforge prompts list`);
}

/** prompts/get arguments are strings (2025-06-18 server/prompts: `arguments: { [key]: string }`). */
function stringArguments(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') throw new UsageError(`--args: prompt argument "${key}" must be a string`);
    out[key] = value;
  }
  return out;
}

function printMessages(result: GetPromptResult): void {
  if (result.description) process.stdout.write(`# ${result.description}\n`);
  for (const message of result.messages) {
    const content = message.content;
    const text =
      content.type === 'text'
        ? content.text
        : `[${content.type}${'mimeType' in content ? ` ${content.mimeType}` : ''}]`;
    process.stdout.write(`[${message.role}] ${text}\n`);
  }
}
