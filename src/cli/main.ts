#!/usr/bin/env node
/** The `agentforge` command: the composition root (nothing imports it). */
import { ConfigError } from '../agent/config.js';
import { ModelError } from '../agent/model.js';
import { chatCommand } from './chat.js';
import { demoCommand } from './demo.js';
import { Shutdown } from './lifecycle.js';
import { runCommand } from './run.js';
import { UsageError } from './setup.js';
import { toolsCommand } from './tools.js';

const USAGE = `agentforge — MCP servers plugged into an LLM agent

usage:
  agentforge run   --config <mcp.json> [--model <provider>:<model>] [--approve all|none|<glob,...>]
                   [--json] [--max-steps N] [--group G]... [--audit <file.jsonl>] [--system <text>]
                   [--no-input] [--verbose] "<task>"
  agentforge chat  --config <mcp.json> [--model <provider>:<model>] [--approve ...] [--group G]... [--audit <file>]
  agentforge tools list --config <mcp.json> [--json]
  agentforge tools call --config <mcp.json> <llmName> [--args '<json>'] [--json]
  agentforge demo  [--model <provider>:<model>] [--task "<task>"] [--approve ...]

models: --model or AGENTFORGE_MODEL, e.g. openai:gpt-4o, openai-responses:gpt-4.1, anthropic:claude-sonnet-4-5,
  gemini:gemini-2.5-flash, ollama:llama3.1; demo:offline-rules is the offline rule-based demo model.
  Keys and endpoints: OPENAI_API_KEY/OPENAI_BASE_URL, ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL,
  GEMINI_API_KEY/GEMINI_BASE_URL, OLLAMA_BASE_URL.
approval: every tool call needs approval unless --approve or the server's "approval" key pre-approves it;
  run asks on the terminal when there is one, otherwise unapproved calls are denied and the model is told.
run --json prints the transcript (format "agentforge.transcript", version 1; see src/agent/transcript.ts).
`;

async function main(argv: string[], signal: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runCommand(rest, signal);
    case 'chat':
      return chatCommand(rest, signal);
    case 'tools':
      return toolsCommand(rest, signal);
    case 'demo':
      return demoCommand(rest, signal);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/** One line for an expected failure; the stack only for a bug. */
function report(error: unknown): number {
  const known = error instanceof UsageError || error instanceof ConfigError || error instanceof ModelError;
  const isUsage =
    error instanceof UsageError || (error as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS');
  process.stderr.write(
    `agentforge: ${known || isUsage ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
  );
  if (isUsage) process.stderr.write('run "agentforge --help" for usage\n');
  return isUsage ? 2 : 1;
}

const shutdown = new Shutdown().install();
main(process.argv.slice(2), shutdown.signal).then(
  (code) => finish(code),
  // After a signal, whatever the command threw is the interruption itself: it was already announced.
  (error: unknown) => finish(shutdown.received ? 0 : report(error)),
);

function finish(code: number): void {
  shutdown.dispose();
  process.exitCode = shutdown.exitCode ?? code;
}
