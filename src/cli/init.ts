/**
 * `agentforge init server [dir] [--http]` and `agentforge init config [dir]`: files a new project starts
 * from. Nothing is ever overwritten: an existing file is a failure that names it.
 */
import { constants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliFailure, EXIT, UsageError } from './errors.js';

export const INIT_SERVER_OPTIONS = { http: { type: 'boolean', default: false } } as const;

export async function initCommand(argv: string[]): Promise<number> {
  const [what, ...rest] = argv;
  if (what === 'server') {
    const { values, positionals } = parseArgs({
      args: rest,
      options: INIT_SERVER_OPTIONS,
      allowPositionals: true,
    });
    return initServer(targetDir(positionals), values.http);
  }
  if (what === 'config') {
    const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true });
    return initConfig(targetDir(positionals));
  }
  throw new UsageError('usage: agentforge init server [dir] [--http] | agentforge init config [dir]');
}

function targetDir(positionals: readonly string[]): string {
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  return resolve(positionals[0] ?? '.');
}

/** A server name from the directory: mcp.json keys are 1-64 non-space characters. */
function serverName(dir: string): string {
  const name = basename(dir)
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return name === '' ? 'my-server' : name;
}

async function initServer(dir: string, http: boolean): Promise<number> {
  const name = serverName(dir);
  const server = join(dir, 'server.mjs');
  const config = join(dir, 'mcp.json');
  await refuseExisting(server);
  const writeConfig = !(await exists(config));
  await mkdir(dir, { recursive: true });
  await writeNew(server, serverSource(name, http));
  if (writeConfig) await writeNew(config, configSource(name, './server.mjs'));
  const lines = [
    `wrote ${server}${writeConfig ? ` and ${config}` : ''}`,
    'the server imports agentforge/server: install agentforge in this project (npm install <agentforge tarball or git URL>)',
    `try it: agentforge tools list --config ${config}`,
    `        agentforge tools call ${name}__greet --config ${config} --args '{"name":"Ada"}'`,
  ];
  if (http)
    lines.push(
      'over HTTP: node server.mjs --http --port 3000  (prints {"url": ...}; put it in mcp.json as "url")',
    );
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

async function initConfig(dir: string): Promise<number> {
  const config = join(dir, 'mcp.json');
  await refuseExisting(config);
  await mkdir(dir, { recursive: true });
  const hasServer = await exists(join(dir, 'server.mjs'));
  await writeNew(config, hasServer ? configSource(serverName(dir), './server.mjs') : EVERYTHING_CONFIG);
  const next = hasServer
    ? "it starts ./server.mjs (resolved against the file's directory)"
    : 'it starts the MCP reference server "everything" with npx; `agentforge init server` writes your own';
  process.stdout.write(`wrote ${config}: ${next}\ntry it: agentforge tools list --config ${config}\n`);
  return EXIT.ok;
}

const EVERYTHING_CONFIG = `${JSON.stringify(
  { mcpServers: { everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } } },
  null,
  2,
)}\n`;

function configSource(name: string, script: string): string {
  // "./server.mjs" resolves against the mcp.json's directory, so the config works from any cwd.
  return `${JSON.stringify({ mcpServers: { [name]: { command: 'node', args: [script] } } }, null, 2)}\n`;
}

function serverSource(name: string, http: boolean): string {
  const serve = http
    ? `// stdio by default (a host spawns it); \`node server.mjs --http [--port N]\` serves Streamable HTTP on
// 127.0.0.1 instead and prints {"url": "http://127.0.0.1:N/mcp"} on stdout (N = 0 picks a free port).
const { values } = parseArgs({
  options: { http: { type: 'boolean', default: false }, port: { type: 'string', default: '3000' } },
});
if (values.http) {
  const listening = await listen(server, { port: Number(values.port) });
  process.stdout.write(\`\${JSON.stringify({ url: listening.url })}\\n\`);
  const stop = async () => {
    await listening.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else {
  await server.serveStdio();
}
`
    : `// stdio: the host starts this file and speaks MCP over its stdin and stdout (logs go to stderr).
await server.serveStdio();
`;
  const imports = http
    ? `import { parseArgs } from 'node:util';\nimport { McpServer, listen } from 'agentforge/server';\n`
    : `import { McpServer } from 'agentforge/server';\n`;
  return `// An MCP server written by \`agentforge init server\`. Every MCP revision, one tool.
${imports}
const server = new McpServer({ name: ${JSON.stringify(name)}, version: '0.1.0' });

server.registerTool(
  'greet',
  {
    description: 'Greet someone by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  async ({ name }) => ({ content: [{ type: 'text', text: \`Hello, \${name}!\` }] }),
);

${serve}`;
}

async function refuseExisting(path: string): Promise<void> {
  if (await exists(path)) throw new CliFailure(`${path} already exists; init never overwrites a file`);
}

/** `wx`: fails rather than overwrite if the file appeared since the check. */
async function writeNew(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CliFailure(`${path} already exists; init never overwrites a file`);
    throw new CliFailure(`cannot write ${path}: ${(error as Error).message}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}
