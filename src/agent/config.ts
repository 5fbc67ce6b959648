/**
 * `mcp.json`: the `mcpServers` format Claude Desktop, Cursor and VS Code already write, plus agentforge's own
 * optional keys per server (`tools.allow`/`tools.deny`, `group`, `timeoutMs`, `protocolVersion`, `approval`,
 * `enabled`, `expose`, `oauth`).
 * Strings may use `${VAR}` (or VS Code's `${env:VAR}`, or `${VAR:-default}`) to pull secrets from the
 * environment, and VS Code's `${input:ID}` for a value the user types (declared under `inputs`). A `command`
 * or `args` entry starting with `./` or `../`, and `cwd`, resolve against the config file's directory.
 * Every error names the file, the server and the key.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isRecord } from '../util/record.js';
import { ConfigError, type ServerConfig, ServerEntryReader } from './server-config.js';

export {
  ConfigError,
  type HttpTransportMode,
  type ServerApproval,
  type ServerConfig,
  type ServerOAuthConfig,
  type ServerTarget,
  type ServerTokenExchangeConfig,
} from './server-config.js';

export interface HostConfig {
  /** The file the config came from, for messages. */
  readonly source: string;
  readonly servers: readonly ServerConfig[];
}

const MAX_CONFIG_BYTES = 1024 * 1024;

export interface LoadConfigOptions {
  /** Variables for `${VAR}`; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Asks for the value of a `${input:ID}` (VS Code prompts for them); without it such a reference fails. */
  readonly resolveInput?: (input: ConfigInput) => Promise<string>;
}

/** A VS Code input (`inputs: [{ "id", "type": "promptString", "description", "password" }]`). */
export interface ConfigInput {
  readonly id: string;
  readonly description?: string;
  readonly password: boolean;
}

export async function loadConfig(path: string, options: LoadConfigOptions = {}): Promise<HostConfig> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(path, undefined, undefined, `cannot read: ${(error as Error).message}`);
  }
  if (text.length > MAX_CONFIG_BYTES)
    throw new ConfigError(path, undefined, undefined, 'file is larger than 1 MiB');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, undefined, undefined, `not valid JSON: ${(error as Error).message}`);
  }
  const inputs: Record<string, string> = {};
  const wanted = referencedInputs(json, path);
  if (wanted.length > 0 && !options.resolveInput) {
    const named = wanted.map((input) => `"${input.id}"`).join(', ');
    throw new ConfigError(
      path,
      undefined,
      'inputs',
      `${named} must be typed in, and there is no terminal to ask`,
    );
  }
  for (const input of wanted) inputs[input.id] = await options.resolveInput!(input);
  const { resolveInput: _, ...rest } = options;
  return parseConfig(json, { ...rest, inputs, source: path, baseDir: dirname(file) });
}

/** The `${input:ID}` references in the servers, with what `inputs` says about each. */
export function referencedInputs(json: unknown, source = 'mcp.json'): ConfigInput[] {
  if (!isRecord(json)) return [];
  // The file is capped at 1 MiB; a regex over its servers' JSON finds every string with no recursive walk.
  const text = JSON.stringify(json.mcpServers ?? json.servers ?? {});
  const ids = new Set<string>();
  for (const match of text.matchAll(/(\$?)\$\{input:([^}]*)\}/g)) if (match[1] === '') ids.add(match[2]!);
  const declared = Array.isArray(json.inputs) ? json.inputs.filter(isRecord) : [];
  return [...ids].map((id) => {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      throw new ConfigError(source, undefined, 'inputs', `bad input id "${id}"`);
    const spec = declared.find((input) => input.id === id);
    const description = typeof spec?.description === 'string' ? spec.description : undefined;
    return { id, ...(description === undefined ? {} : { description }), password: spec?.password === true };
  });
}

export interface ParseConfigOptions extends LoadConfigOptions {
  readonly source?: string;
  /** Relative `cwd`s, and `./`/`../` commands and args, resolve against this directory (the config file's). */
  readonly baseDir?: string;
  /** Values for `${input:ID}`. */
  readonly inputs?: Readonly<Record<string, string>>;
}

export function parseConfig(json: unknown, options: ParseConfigOptions = {}): HostConfig {
  const source = options.source ?? 'mcp.json';
  if (!isRecord(json)) throw new ConfigError(source, undefined, undefined, 'must be a JSON object');
  const servers = json.mcpServers ?? json.servers;
  if (!isRecord(servers))
    throw new ConfigError(source, undefined, 'mcpServers', 'must be an object of servers');
  const reader = new ServerEntryReader(
    source,
    options.env ?? process.env,
    options.baseDir ?? process.cwd(),
    options.inputs ?? {},
  );
  return { source, servers: Object.entries(servers).map(([name, raw]) => reader.server(name, raw)) };
}
