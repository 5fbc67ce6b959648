/**
 * What every command accepts, in one place: `--help` text, "did you mean" for flags and subcommands, and the
 * top-level usage are all generated from these specs (the commands' parseArgs options are checked against
 * them by test/cli/help.test.ts, so the two cannot drift apart).
 */
import { EXIT_CODES_HELP } from './errors.js';
import { closest } from './suggest.js';

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  /** The value's placeholder (`<file>`); absent for a boolean flag. */
  readonly value?: string;
  readonly help: string;
}

export interface CommandSpec {
  /** `run`, or `list` under `tools`. */
  readonly name: string;
  readonly summary: string;
  /** Synopsis lines, after `agentforge `. */
  readonly usage: readonly string[];
  readonly flags: readonly FlagSpec[];
  readonly notes?: string;
  readonly subcommands?: readonly CommandSpec[];
}

const CONFIG: FlagSpec = {
  name: 'config',
  short: 'c',
  value: '<mcp.json>',
  help: 'the servers to use (default: discovered, see `agentforge config --help`)',
};
const VERBOSE: FlagSpec = {
  name: 'verbose',
  short: 'v',
  help: 'more detail on stderr (debug lines, stack traces)',
};
const HELP: FlagSpec = { name: 'help', short: 'h', help: 'show this help' };
const JSON_OUT: FlagSpec = { name: 'json', help: 'print JSON on stdout' };
const TIMEOUT: FlagSpec = {
  name: 'timeout',
  value: '<seconds>',
  help: 'how long servers may take to connect (default 30); a server still connecting then is a failure',
};
const SERVER: FlagSpec = { name: 'server', short: 's', value: '<name>', help: 'only this server' };
const MODEL: FlagSpec = {
  name: 'model',
  short: 'm',
  value: '<provider>:<model>',
  help: 'e.g. openai:gpt-4o (default: AGENTFORGE_MODEL); demo:offline-rules needs no key',
};
const APPROVE: FlagSpec = {
  name: 'approve',
  value: 'all|none|<glob,...>',
  help: 'pre-approve tool calls by llmName glob (default: ask, or deny without a terminal)',
};
const GROUP: FlagSpec = {
  name: 'group',
  value: '<name>',
  help: 'only servers in this group, plus ungrouped ones (repeatable)',
};
const LOG_LEVEL: FlagSpec = {
  name: 'log-level',
  value: '<level>',
  help: 'show server logs at this level and up, asked of each server (debug, info, notice, warning, error, critical, alert, emergency; default: warning and up, none asked)',
};
const QUIET: FlagSpec = {
  name: 'quiet',
  short: 'q',
  help: 'no progress on stderr (spinners or step lines); warnings, errors and server logs still show',
};
const AUDIT: FlagSpec = { name: 'audit', value: '<file.jsonl>', help: 'append every tool call to this file' };
const SYSTEM: FlagSpec = { name: 'system', value: '<text>', help: 'the system prompt' };

const MODELS_NOTE = `models: --model or AGENTFORGE_MODEL, e.g. openai:gpt-4o, openai-responses:gpt-4.1,
  anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, ollama:llama3.1; demo:offline-rules is the offline
  rule-based demo model (no key, no network). Keys and endpoints: OPENAI_API_KEY/OPENAI_BASE_URL,
  ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL, GEMINI_API_KEY/GEMINI_BASE_URL, OLLAMA_BASE_URL.
approval: every tool call needs approval unless --approve or the server's "approval" key pre-approves it;
  run asks on the terminal when there is one, otherwise unapproved calls are denied and the model is told.
progress: on stderr. On a terminal: a spinner per server connecting, the model thinking, each tool call with
  its elapsed time and the server's progress bar and message, a call waiting for approval shown as waiting;
  the answer streams in as the model writes it. Not on a terminal: one plain line per step (none for
  \`run --json\`). --quiet turns it off; stdout carries only the answer or the JSON transcript.`;

export const RUN_SPEC: CommandSpec = {
  name: 'run',
  summary: 'run one task with an agent over the configured servers; the answer goes to stdout',
  usage: ['run [--config <mcp.json>] [--model <provider>:<model>] [options] "<task>"'],
  flags: [
    CONFIG,
    MODEL,
    APPROVE,
    { name: 'json', help: 'print the transcript as JSON (format "agentforge.transcript", version 1)' },
    { name: 'max-steps', value: '<n>', help: 'stop after n model turns (default 10; exit 4 when hit)' },
    GROUP,
    AUDIT,
    SYSTEM,
    { name: 'no-input', help: 'never ask on the terminal: unapproved calls are denied' },
    LOG_LEVEL,
    QUIET,
    VERBOSE,
    HELP,
  ],
  notes: MODELS_NOTE,
};

export const CHAT_SPEC: CommandSpec = {
  name: 'chat',
  summary: 'an interactive conversation with an agent over the configured servers',
  usage: ['chat [--config <mcp.json>] [--model <provider>:<model>] [options]'],
  flags: [CONFIG, MODEL, APPROVE, GROUP, AUDIT, SYSTEM, LOG_LEVEL, QUIET, VERBOSE, HELP],
  notes: MODELS_NOTE,
};

export const TOOLS_SPEC: CommandSpec = {
  name: 'tools',
  summary: "list and call the servers' tools, without a model",
  usage: ['tools list [options]', "tools call <llmName> [--args '<json>'] [options]"],
  flags: [HELP],
  subcommands: [
    {
      name: 'list',
      summary: 'every tool: llmName, server/MCP name, first line of the description',
      usage: ['tools list [--config <mcp.json>] [--json]'],
      flags: [CONFIG, JSON_OUT, TIMEOUT, LOG_LEVEL, VERBOSE, HELP],
    },
    {
      name: 'call',
      summary: 'call one tool (by the llmName `tools list` shows) and print its result',
      usage: ["tools call <llmName> [--config <mcp.json>] [--args '<json>'] [--json]"],
      flags: [
        CONFIG,
        { name: 'args', short: 'a', value: '<json>', help: 'the arguments, a JSON object' },
        JSON_OUT,
        TIMEOUT,
        LOG_LEVEL,
        VERBOSE,
        HELP,
      ],
      notes: `progress: on a terminal, a spinner while servers connect and the call runs, with the server's
  progress bar and message; nothing extra when stderr is not a terminal.`,
    },
  ],
};

export const RESOURCES_SPEC: CommandSpec = {
  name: 'resources',
  summary: "list and read the servers' resources",
  usage: ['resources list [options]', 'resources read <uri> [--server <name>] [options]'],
  flags: [HELP],
  subcommands: [
    {
      name: 'list',
      summary: 'every resource and resource template: server, URI, name, MIME type',
      usage: ['resources list [--config <mcp.json>] [--server <name>] [--json]'],
      flags: [CONFIG, SERVER, JSON_OUT, TIMEOUT, VERBOSE, HELP],
    },
    {
      name: 'read',
      summary: 'read one resource (text to stdout; binary contents are summarised unless --json)',
      usage: ['resources read <uri> [--config <mcp.json>] [--server <name>] [--json]'],
      flags: [
        CONFIG,
        { ...SERVER, help: 'the server to ask (default: the one that lists the URI)' },
        JSON_OUT,
        TIMEOUT,
        VERBOSE,
        HELP,
      ],
    },
  ],
};

export const PROMPTS_SPEC: CommandSpec = {
  name: 'prompts',
  summary: "list and get the servers' prompts",
  usage: ['prompts list [options]', "prompts get <name> [--server <name>] [--args '<json>'] [options]"],
  flags: [HELP],
  subcommands: [
    {
      name: 'list',
      summary: 'every prompt: server, name, arguments (* = required), description',
      usage: ['prompts list [--config <mcp.json>] [--server <name>] [--json]'],
      flags: [CONFIG, SERVER, JSON_OUT, TIMEOUT, VERBOSE, HELP],
    },
    {
      name: 'get',
      summary: "get one prompt's messages",
      usage: ["prompts get <name> [--config <mcp.json>] [--server <name>] [--args '<json>'] [--json]"],
      flags: [
        CONFIG,
        { ...SERVER, help: 'the server to ask (default: the one that lists the prompt)' },
        { name: 'args', short: 'a', value: '<json>', help: 'the arguments, a JSON object of strings' },
        JSON_OUT,
        TIMEOUT,
        VERBOSE,
        HELP,
      ],
    },
  ],
};

export const CONFIG_SPEC: CommandSpec = {
  name: 'config',
  summary: 'find and import mcp.json files',
  usage: ['config path', 'config import [--from claude|cursor] [--force]'],
  flags: [HELP],
  notes: `discovery: without --config, the first of these is used:
  ./mcp.json, ./.mcp.json, ./.vscode/mcp.json (VS Code's "servers" format),
  $XDG_CONFIG_HOME/agentforge/mcp.json (default ~/.config/agentforge/mcp.json).
relative paths: a server's "command" or "args" entry that starts with ./ or ../, and "cwd", are resolved
  against the directory of the config file; other values are passed as written.
inputs: VS Code's \${input:ID} (declared under "inputs") is asked for on the terminal, not echoed when
  "password" is true; without a terminal the command fails naming the input.`,
  subcommands: [
    {
      name: 'path',
      summary: 'print the config file a command would use without --config, and the places searched',
      usage: ['config path'],
      flags: [HELP],
    },
    {
      name: 'import',
      summary: "merge Claude Desktop's and Cursor's servers into the user's agentforge config",
      usage: ['config import [--from claude|cursor] [--force]'],
      flags: [
        { name: 'from', value: 'claude|cursor', help: 'import only from this application (repeatable)' },
        { name: 'force', help: 'replace servers that already exist under the same name' },
        HELP,
      ],
      notes: `sources: Claude Desktop's claude_desktop_config.json (~/.config/Claude on Linux,
  ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows), Cursor's ~/.cursor/mcp.json.`,
    },
  ],
};

export const INIT_SPEC: CommandSpec = {
  name: 'init',
  summary: 'scaffold a working MCP server or an mcp.json (never overwrites a file)',
  usage: ['init server [dir] [--http]', 'init config [dir]'],
  flags: [HELP],
  subcommands: [
    {
      name: 'server',
      summary:
        'write server.mjs (one tool, agentforge/server, stdio) and an mcp.json for it into dir (default .)',
      usage: ['init server [dir] [--http]'],
      flags: [
        { name: 'http', help: 'serve Streamable HTTP too (`node server.mjs --http [--port N]`)' },
        HELP,
      ],
    },
    {
      name: 'config',
      summary:
        'write an mcp.json into dir (default .): its ./server.mjs if there is one, else the reference server',
      usage: ['init config [dir]'],
      flags: [HELP],
    },
  ],
};

const AUTH_FLAGS: readonly FlagSpec[] = [
  CONFIG,
  { name: 'no-browser', help: 'print the authorization URL instead of opening the browser (login)' },
  JSON_OUT,
  HELP,
];

export const AUTH_SPEC: CommandSpec = {
  name: 'auth',
  summary: "log in to a server's OAuth authorization server, log out, or show the stored login",
  usage: ['auth login|logout|status <server> [--config <mcp.json>] [--no-browser] [--json]'],
  flags: AUTH_FLAGS,
  notes: `tokens: stored in $XDG_CONFIG_HOME/agentforge/tokens.json (default ~/.config/agentforge), mode 0600,
  keyed by authorization server and resource; never printed. A server's "oauth" key in mcp.json sets
  clientId, clientSecret, scopes and redirectUri.`,
  subcommands: [
    {
      name: 'login',
      summary: 'authorize in the browser and store the tokens',
      usage: ['auth login <server>'],
      flags: AUTH_FLAGS,
    },
    {
      name: 'logout',
      summary: "forget the server's stored tokens",
      usage: ['auth logout <server>'],
      flags: AUTH_FLAGS,
    },
    {
      name: 'status',
      summary: 'show the stored login (never the token)',
      usage: ['auth status <server>'],
      flags: AUTH_FLAGS,
    },
  ],
};

export const DEMO_SPEC: CommandSpec = {
  name: 'demo',
  summary: 'the end-to-end demo: bundled servers (stdio and HTTP), one agent task, every frame printed',
  usage: ['demo [--model <provider>:<model>] [--task "<task>"] [--approve ...]'],
  flags: [
    { ...MODEL, help: 'default: AGENTFORGE_MODEL, a local Ollama, else the offline demo model' },
    { name: 'task', short: 't', value: '<text>', help: 'the task (default: an order and weather question)' },
    APPROVE,
    VERBOSE,
    HELP,
  ],
};

export const GATEWAY_SPEC: CommandSpec = {
  name: 'gateway',
  summary: 'serve the configured servers as one MCP server (/mcp, /mcp/<group>, /healthz, /readyz)',
  usage: ['gateway [--config <mcp.json>] [--port <n>] [--host 127.0.0.1] [--stdio]'],
  flags: [
    CONFIG,
    {
      name: 'port',
      short: 'p',
      value: '<n>',
      help: 'the port to listen on (default: gateway.listen.port, else 3000; 0 picks one)',
    },
    {
      name: 'host',
      value: '<address>',
      help: 'the address to bind (default: gateway.listen.host, else 127.0.0.1)',
    },
    {
      name: 'stdio',
      help: 'serve on stdin/stdout instead of HTTP (one client: the process that started it)',
    },
    TIMEOUT,
    VERBOSE,
    HELP,
  ],
  notes: `The "gateway" section of mcp.json sets the listen address, downstream auth (issuer and jwksUrl of the
authorization server: callers need a bearer token), policies (which principals may list and call which
tools), rateLimits, perPrincipal servers, the servers /readyz waits for (required), prefix (false: one
upstream served with its exact names), toolSearch and an audit file. A server with "tokenExchange" (tokenEndpoint,
clientId, clientSecret, audience or resource, scope) is reached by each caller with its own token, exchanged for
the caller's access token (RFC 8693). The endpoint URL is printed on stdout
as one JSON line, {"url": "http://127.0.0.1:3000/mcp"}; SIGINT or SIGTERM closes every session and server.`,
};

export const VERSION_FLAG: FlagSpec = { name: 'version', short: 'V', help: 'print the version' };

/** `--help` for one command or subcommand. */
export function commandHelp(spec: CommandSpec, parent?: CommandSpec): string {
  const lines = [`agentforge ${parent ? `${parent.name} ` : ''}${spec.name} — ${spec.summary}`, '', 'usage:'];
  for (const usage of spec.usage) lines.push(`  agentforge ${usage}`);
  if (spec.subcommands) {
    lines.push('', 'commands:');
    const width = Math.max(...spec.subcommands.map((s) => s.name.length));
    for (const sub of spec.subcommands) lines.push(`  ${sub.name.padEnd(width)}  ${sub.summary}`);
    lines.push('', `run "agentforge ${spec.name} <command> --help" for its options`);
  }
  const flags = spec.flags.map((flag) => [flagLabel(flag), flag.help] as const);
  if (flags.length > 0) {
    lines.push('', 'options:');
    const width = Math.max(...flags.map(([label]) => label.length));
    for (const [label, help] of flags) lines.push(`  ${label.padEnd(width)}  ${help}`);
  }
  if (spec.notes) lines.push('', spec.notes);
  return `${lines.join('\n')}\n`;
}

function flagLabel(flag: FlagSpec): string {
  const names = `${flag.short ? `-${flag.short}, ` : '    '}--${flag.name}`;
  return flag.value ? `${names} ${flag.value}` : names;
}

/** The top-level usage: every command's synopsis, the models, the exit codes. */
export function mainHelp(specs: readonly CommandSpec[]): string {
  const lines = ['agentforge — MCP servers plugged into an LLM agent', '', 'usage:'];
  for (const spec of specs) for (const usage of spec.usage) lines.push(`  agentforge ${usage}`);
  lines.push('  agentforge --version', '');
  lines.push('commands:');
  const width = Math.max(...specs.map((s) => s.name.length));
  for (const spec of specs) lines.push(`  ${spec.name.padEnd(width)}  ${spec.summary}`);
  lines.push('', 'run "agentforge <command> --help" for its options', '', MODELS_NOTE, '', EXIT_CODES_HELP);
  return `${lines.join('\n')}\n`;
}

/** `unknown option --jsn for "tools list"; did you mean "--json"?` */
export function unknownFlagMessage(option: string, spec: CommandSpec, path: string): string {
  const names = spec.flags.flatMap((f) => [`--${f.name}`, ...(f.short ? [`-${f.short}`] : [])]);
  const near = closest(option, names);
  return `unknown option ${option} for "${path}"${near ? `; did you mean ${near}?` : ''}`;
}
