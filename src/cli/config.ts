/**
 * `agentforge config path|import`. Import merges the servers of Claude Desktop's and Cursor's config files
 * into the user's agentforge config (`$XDG_CONFIG_HOME/agentforge/mcp.json`): a server already there is kept
 * unless `--force`, and every other key of the file is left as it was.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { CliFailure, EXIT, UsageError } from './errors.js';
import { configCandidates, findConfig, userConfigPath } from './discover.js';
import { isRecord } from '../util/record.js';

type Env = Readonly<Record<string, string | undefined>>;

export const CONFIG_IMPORT_OPTIONS = {
  from: { type: 'string', multiple: true },
  force: { type: 'boolean', default: false },
} as const;

export interface ImportSource {
  readonly app: 'claude' | 'cursor';
  readonly label: string;
  readonly path: string;
}

/** Where Claude Desktop and Cursor keep their MCP servers on this platform. */
export function importSources(env: Env = process.env, platform: string = process.platform): ImportSource[] {
  const home = env.HOME?.trim() || env.USERPROFILE?.trim() || '';
  const claudeDir =
    platform === 'darwin'
      ? join(home, 'Library', 'Application Support', 'Claude')
      : platform === 'win32'
        ? join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude')
        : join(env.XDG_CONFIG_HOME?.trim() || join(home, '.config'), 'Claude');
  return [
    { app: 'claude', label: 'Claude Desktop', path: join(claudeDir, 'claude_desktop_config.json') },
    { app: 'cursor', label: 'Cursor', path: join(home, '.cursor', 'mcp.json') },
  ];
}

export async function configCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'path') {
    parseArgs({ args: rest, options: {}, allowPositionals: false });
    return printPath();
  }
  if (action === 'import') {
    const { values } = parseArgs({ args: rest, options: CONFIG_IMPORT_OPTIONS, allowPositionals: false });
    for (const app of values.from ?? []) {
      if (app !== 'claude' && app !== 'cursor')
        throw new UsageError(`--from must be claude or cursor, not "${app}"`);
    }
    return importConfigs({ from: values.from ?? ['claude', 'cursor'], force: values.force });
  }
  throw new UsageError(
    'usage: agentforge config path | agentforge config import [--from claude|cursor] [--force]',
  );
}

async function printPath(): Promise<number> {
  const found = await findConfig();
  for (const place of configCandidates()) process.stderr.write(`# searched ${place}\n`);
  if (!found) throw new CliFailure('no config found (`agentforge init config` writes one)');
  process.stdout.write(`${found}\n`);
  return EXIT.ok;
}

export interface ImportOptions {
  readonly from: readonly string[];
  readonly force: boolean;
  readonly env?: Env;
}

export async function importConfigs(options: ImportOptions): Promise<number> {
  const env = options.env ?? process.env;
  const sources = importSources(env).filter((s) => options.from.includes(s.app));
  const target = userConfigPath(env);
  const existing = (await readJsonObject(target)) ?? {};
  const servers = { ...(asObject(existing.mcpServers) ?? {}) };
  let found = 0;
  let imported = 0;
  for (const source of sources) {
    const json = await readJsonObject(source.path);
    if (!json) continue;
    found++;
    const theirs = asObject(json.mcpServers) ?? {};
    for (const [name, server] of Object.entries(theirs)) {
      if (!asObject(server) || !/^[^\s]{1,64}$/.test(name) || name === '__proto__') {
        process.stderr.write(`skipped ${JSON.stringify(name)} from ${source.label}: not a server entry\n`);
        continue;
      }
      if (name in servers && !options.force) {
        process.stderr.write(
          `kept the existing "${name}" (${source.label} has one too; --force replaces it)\n`,
        );
        continue;
      }
      servers[name] = server;
      imported++;
      process.stderr.write(`imported "${name}" from ${source.label} (${source.path})\n`);
    }
  }
  if (found === 0) {
    const places = sources.map((s) => `${s.label}: ${s.path}`).join(', ');
    throw new CliFailure(`nothing to import: no config at ${places}`);
  }
  if (imported > 0) await writeJsonAtomic(target, { ...existing, mcpServers: servers });
  process.stdout.write(`${imported} server${imported === 1 ? '' : 's'} imported into ${target}\n`);
  return EXIT.ok;
}

const MAX_BYTES = 1024 * 1024;

/** The file's JSON object; undefined when it does not exist. Anything else is a failure naming the file. */
async function readJsonObject(path: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliFailure(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (text.length > MAX_BYTES) throw new CliFailure(`${path} is larger than 1 MiB`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliFailure(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const object = asObject(json);
  if (!object) throw new CliFailure(`${path} must hold a JSON object`);
  return object;
}

/** Written beside the target then renamed, so a crash never leaves half a config; 0600 as it may hold keys. */
async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
