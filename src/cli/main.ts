#!/usr/bin/env node
/** The `agentforge` command: the composition root (nothing imports it). */
import { ConfigError } from '../agent/config.js';
import { ModelError } from '../agent/model.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { chatCommand } from './chat.js';
import { demoCommand } from './demo.js';
import { runCommand } from './run.js';
import { UsageError } from './setup.js';
import { toolsCommand } from './tools.js';

const USAGE = `agentforge ${PACKAGE_VERSION} — MCP servers plugged into an LLM agent

usage:
  agentforge run   --config <mcp.json> [--model <provider>:<model>] [--approve all|none|<glob,...>]
                   [--json] [--max-steps N] [--group G]... [--audit <file.jsonl>] [--system <text>]
                   [--no-input] [--verbose] "<task>"
  agentforge chat  --config <mcp.json> [--model <provider>:<model>] [--approve ...] [--group G]... [--audit <file>]
  agentforge tools list --config <mcp.json> [--json]
  agentforge tools call --config <mcp.json> <llmName> [--args '<json>'] [--json]
  agentforge demo  [--model <provider>:<model>] [--task "<task>"] [--approve ...]
  agentforge --version

models: --model or AGENTFORGE_MODEL, e.g. openai:gpt-4o, openai-responses:gpt-4.1, anthropic:claude-sonnet-4-5,
  gemini:gemini-2.5-flash, ollama:llama3.1; demo:offline-rules is the offline rule-based demo model.
  Keys and endpoints: OPENAI_API_KEY/OPENAI_BASE_URL, ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL,
  GEMINI_API_KEY/GEMINI_BASE_URL, OLLAMA_BASE_URL.
approval: every tool call needs approval unless --approve or the server's "approval" key pre-approves it;
  run asks on the terminal when there is one, otherwise unapproved calls are denied and the model is told.
run --json prints the transcript (format "agentforge.transcript", version 1; see src/agent/transcript.ts).
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'chat':
      return chatCommand(rest);
    case 'tools':
      return toolsCommand(rest);
    case 'demo':
      return demoCommand(rest);
    case '--version':
    case '-V':
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof UsageError || error instanceof ConfigError || error instanceof ModelError;
    const isUsage =
      error instanceof UsageError || (error as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS');
    process.stderr.write(
      `agentforge: ${known || isUsage ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
    );
    if (isUsage) process.stderr.write('run "agentforge --help" for usage\n');
    process.exitCode = isUsage ? 2 : 1;
  },
);
