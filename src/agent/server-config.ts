/**
 * One server of `mcp.json` (src/agent/config.ts reads the file): the model an entry becomes, and the reading
 * that checks each key, interpolates `${VAR}` and `${input:ID}`, and resolves relative paths.
 */
import { resolve } from 'node:path';
import { isRecord } from '../util/record.js';

export type HttpTransportMode = 'streamable-http' | 'sse' | 'auto';

export type ServerTarget =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly mode: HttpTransportMode;
    };

/** Per-server approval: `ask` (default), `auto` (pre-approved), `deny`, or globs over the MCP tool names. */
export type ServerApproval =
  | 'ask'
  | 'auto'
  | 'deny'
  | { readonly auto?: readonly string[]; readonly deny?: readonly string[] };

/**
 * `oauth` on an HTTP server: how to authorize with it (agentforge/auth). Without `clientId` the client uses a
 * client metadata document (`clientMetadataUrl`) or registers itself where the server allows it.
 */
export interface ServerOAuthConfig {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  readonly scopes?: readonly string[];
  /** A loopback redirect such as http://127.0.0.1:8765/callback (pre-registered clients need a fixed one). */
  readonly redirectUri?: string;
  readonly clientMetadataUrl?: string;
  /** Let metadata and token requests reach private (RFC 1918 / ULA) addresses. */
  readonly allowPrivateNetwork?: boolean;
}

const OAUTH_KEYS = new Set([
  'clientId',
  'clientSecret',
  'tokenEndpointAuthMethod',
  'scopes',
  'redirectUri',
  'clientMetadataUrl',
  'allowPrivateNetwork',
]);

/**
 * `tokenExchange` on an HTTP server (read by the gateway): each caller reaches it with a token of its own,
 * obtained by RFC 8693 token exchange of the caller's verified access token at `tokenEndpoint`.
 */
export interface ServerTokenExchangeConfig {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  /** RFC 8693 `audience`; with neither it nor `resource`, `resource` is the server's URL. */
  readonly audience?: string;
  readonly resource?: string;
  readonly scope?: string;
}

const TOKEN_EXCHANGE_KEYS = ['tokenEndpoint', 'clientId', 'clientSecret', 'audience', 'resource', 'scope'];

export interface ServerConfig {
  readonly name: string;
  readonly target: ServerTarget;
  /** Globs over the server's MCP tool names; empty `allow` means every tool. `deny` wins. */
  readonly tools: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  readonly groups: readonly string[];
  readonly timeoutMs?: number;
  /** Pin a protocol revision (e.g. `2025-11-25`): no era probe, no fallback. */
  readonly protocolVersion?: string;
  readonly approval: ServerApproval;
  readonly enabled: boolean;
  /** Opt-in: offer the server's resources (read) and prompts (get) to the model as tools too. */
  readonly expose: { readonly resources: boolean; readonly prompts: boolean };
  /** OAuth for a protected HTTP server. */
  readonly oauth?: ServerOAuthConfig;
  /** The gateway's RFC 8693 token exchange for this server: one connection per caller, with its own token. */
  readonly tokenExchange?: ServerTokenExchangeConfig;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly server: string | undefined,
    readonly key: string | undefined,
    reason: string,
  ) {
    const where = [
      source,
      server === undefined ? '' : `server "${server}"`,
      key === undefined ? '' : `key "${key}"`,
    ]
      .filter(Boolean)
      .join(', ');
    super(`${where}: ${reason}`);
  }
}

const SERVER_KEYS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'type',
  'tools',
  'group',
  'timeoutMs',
  'protocolVersion',
  'approval',
  'enabled',
  'expose',
  'oauth',
  'tokenExchange',
  // Written by other hosts; accepted and ignored.
  'disabled',
  'autoApprove',
  'alwaysAllow',
  'envFile',
  'description',
]);

/** Reads one entry of `mcpServers`; every error names the file, the server and the key. */
export class ServerEntryReader {
  readonly #source: string;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #baseDir: string;
  readonly #inputs: Readonly<Record<string, string>>;

  constructor(
    source: string,
    env: Readonly<Record<string, string | undefined>>,
    baseDir: string,
    inputs: Readonly<Record<string, string>>,
  ) {
    this.#source = source;
    this.#env = env;
    this.#baseDir = baseDir;
    this.#inputs = inputs;
  }

  server(name: string, raw: unknown): ServerConfig {
    if (!/^[^\s]{1,64}$/.test(name))
      this.#fail(name, undefined, 'server names are 1-64 non-space characters');
    if (!isRecord(raw)) this.#fail(name, undefined, 'must be an object');
    for (const key of Object.keys(raw)) if (!SERVER_KEYS.has(key)) this.#fail(name, key, 'unknown key');
    const enabled = this.#optional(name, raw, 'enabled', 'boolean') ?? raw.disabled !== true;
    const timeoutMs = this.#optional(name, raw, 'timeoutMs', 'number');
    const protocolVersion = this.#optional(name, raw, 'protocolVersion', 'string');
    if (protocolVersion !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(protocolVersion)) {
      this.#fail(name, 'protocolVersion', 'must be a revision date such as 2025-11-25');
    }
    if (timeoutMs !== undefined && !(timeoutMs > 0))
      this.#fail(name, 'timeoutMs', 'must be a positive number');
    const target = this.#target(name, raw);
    if (raw.oauth !== undefined && target.kind !== 'http')
      this.#fail(name, 'oauth', 'only an HTTP server takes "oauth"');
    const oauth = raw.oauth === undefined ? undefined : this.#oauth(name, raw.oauth);
    if (raw.tokenExchange !== undefined && target.kind !== 'http')
      this.#fail(name, 'tokenExchange', 'only an HTTP server takes "tokenExchange"');
    const tokenExchange =
      raw.tokenExchange === undefined ? undefined : this.#tokenExchange(name, raw.tokenExchange);
    return {
      name,
      target,
      tools: this.#tools(name, raw.tools),
      groups: this.#groups(name, raw.group),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
      approval: this.#approval(name, raw.approval),
      enabled,
      expose: this.#expose(name, raw.expose),
      ...(oauth === undefined ? {} : { oauth }),
      ...(tokenExchange === undefined ? {} : { tokenExchange }),
    };
  }

  #tokenExchange(name: string, raw: unknown): ServerTokenExchangeConfig {
    if (!isRecord(raw)) this.#fail(name, 'tokenExchange', 'must be an object');
    const entries: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw)) {
      if (!TOKEN_EXCHANGE_KEYS.includes(key)) this.#fail(name, `tokenExchange.${key}`, 'unknown key');
      entries[key] = this.#string(name, `tokenExchange.${key}`, value);
    }
    for (const key of ['tokenEndpoint', 'clientId'])
      if (entries[key] === undefined) this.#fail(name, `tokenExchange.${key}`, 'is required');
    // The request carries the caller's token and the gateway's secret: plain http only to this machine.
    if (!/^(https:\/\/|http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/])/.test(entries.tokenEndpoint!))
      this.#fail(name, 'tokenExchange.tokenEndpoint', 'must be an https URL (or http on loopback)');
    return entries as unknown as ServerTokenExchangeConfig;
  }

  #oauth(name: string, raw: unknown): ServerOAuthConfig {
    if (!isRecord(raw)) this.#fail(name, 'oauth', 'must be an object');
    for (const key of Object.keys(raw))
      if (!OAUTH_KEYS.has(key)) this.#fail(name, `oauth.${key}`, 'unknown key');
    const text = (key: string) => {
      const value = this.#optional(name, raw, key, 'string');
      return value === undefined ? undefined : this.#interpolate(name, `oauth.${key}`, value);
    };
    const method = text('tokenEndpointAuthMethod');
    if (method !== undefined && !['client_secret_basic', 'client_secret_post', 'none'].includes(method))
      this.#fail(
        name,
        'oauth.tokenEndpointAuthMethod',
        'must be client_secret_basic, client_secret_post or none',
      );
    const redirectUri = text('redirectUri');
    if (redirectUri !== undefined && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\//.test(redirectUri))
      this.#fail(
        name,
        'oauth.redirectUri',
        'must be a loopback URL with a port, e.g. http://127.0.0.1:8765/callback',
      );
    const allowPrivateNetwork = this.#optional(name, raw, 'allowPrivateNetwork', 'boolean');
    const entries = {
      clientId: text('clientId'),
      clientSecret: text('clientSecret'),
      tokenEndpointAuthMethod: method as ServerOAuthConfig['tokenEndpointAuthMethod'],
      scopes: raw.scopes === undefined ? undefined : this.#strings(name, 'oauth.scopes', raw.scopes),
      redirectUri,
      clientMetadataUrl: text('clientMetadataUrl'),
      allowPrivateNetwork,
    };
    return Object.fromEntries(
      Object.entries(entries).filter(([, value]) => value !== undefined),
    ) as ServerOAuthConfig;
  }

  #target(name: string, raw: Record<string, unknown>): ServerTarget {
    const type = this.#optional(name, raw, 'type', 'string');
    if (type !== undefined && !['stdio', 'http', 'sse', 'streamable-http'].includes(type)) {
      this.#fail(name, 'type', 'must be "stdio", "http" or "sse"');
    }
    const hasUrl = raw.url !== undefined;
    if (type === 'stdio' || (type === undefined && !hasUrl)) {
      if (hasUrl) this.#fail(name, 'url', 'a stdio server takes "command", not "url"');
      const command = this.#relative(this.#string(name, 'command', raw.command));
      const args = this.#strings(name, 'args', raw.args ?? []).map((arg) => this.#relative(arg));
      const env = raw.env === undefined ? undefined : this.#record(name, 'env', raw.env);
      const cwdRaw = this.#optional(name, raw, 'cwd', 'string');
      const cwd =
        cwdRaw === undefined ? undefined : resolve(this.#baseDir, this.#interpolate(name, 'cwd', cwdRaw));
      return {
        kind: 'stdio',
        command,
        args,
        ...(env === undefined ? {} : { env }),
        ...(cwd === undefined ? {} : { cwd }),
      };
    }
    if (raw.command !== undefined)
      this.#fail(name, 'command', `a ${type ?? 'URL'} server takes "url", not "command"`);
    const url = this.#string(name, 'url', raw.url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      this.#fail(name, 'url', `not a valid URL: ${url}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      this.#fail(name, 'url', 'must be http(s)');
    const headers = raw.headers === undefined ? {} : this.#record(name, 'headers', raw.headers);
    const mode: HttpTransportMode = type === 'sse' ? 'sse' : type === undefined ? 'auto' : 'streamable-http';
    return { kind: 'http', url: parsed.href, headers, mode };
  }

  #tools(name: string, raw: unknown): ServerConfig['tools'] {
    if (raw === undefined) return { allow: [], deny: [] };
    if (!isRecord(raw)) this.#fail(name, 'tools', 'must be an object with "allow" and/or "deny"');
    for (const key of Object.keys(raw)) {
      if (key !== 'allow' && key !== 'deny') this.#fail(name, `tools.${key}`, 'unknown key');
    }
    return {
      allow: this.#strings(name, 'tools.allow', raw.allow ?? []),
      deny: this.#strings(name, 'tools.deny', raw.deny ?? []),
    };
  }

  #groups(name: string, raw: unknown): readonly string[] {
    if (raw === undefined) return [];
    if (typeof raw === 'string') return [raw];
    return this.#strings(name, 'group', raw);
  }

  #approval(name: string, raw: unknown): ServerApproval {
    if (raw === undefined) return 'ask';
    if (raw === 'ask' || raw === 'auto' || raw === 'deny') return raw;
    if (!isRecord(raw))
      this.#fail(name, 'approval', 'must be "ask", "auto", "deny" or { "auto": [globs], "deny": [globs] }');
    for (const key of Object.keys(raw)) {
      if (key !== 'auto' && key !== 'deny') this.#fail(name, `approval.${key}`, 'unknown key');
    }
    return {
      auto: this.#strings(name, 'approval.auto', raw.auto ?? []),
      deny: this.#strings(name, 'approval.deny', raw.deny ?? []),
    };
  }

  #expose(name: string, raw: unknown): ServerConfig['expose'] {
    if (raw === undefined) return { resources: false, prompts: false };
    if (!isRecord(raw)) this.#fail(name, 'expose', 'must be { "resources": boolean, "prompts": boolean }');
    for (const key of Object.keys(raw)) {
      if (key !== 'resources' && key !== 'prompts') this.#fail(name, `expose.${key}`, 'unknown key');
      if (typeof raw[key] !== 'boolean') this.#fail(name, `expose.${key}`, 'must be a boolean');
    }
    return { resources: raw.resources === true, prompts: raw.prompts === true };
  }

  #optional<K extends 'string' | 'number' | 'boolean'>(
    name: string,
    raw: Record<string, unknown>,
    key: string,
    type: K,
  ): (K extends 'string' ? string : K extends 'number' ? number : boolean) | undefined {
    const value = raw[key];
    if (value === undefined) return undefined;
    if (typeof value !== type) this.#fail(name, key, `must be a ${type}`);
    return value as never;
  }

  #string(name: string, key: string, value: unknown): string {
    if (typeof value !== 'string' || value === '') this.#fail(name, key, 'must be a non-empty string');
    return this.#interpolate(name, key, value);
  }

  #strings(name: string, key: string, value: unknown): readonly string[] {
    if (!Array.isArray(value)) this.#fail(name, key, 'must be an array of strings');
    return value.map((item, index) => {
      if (typeof item !== 'string') this.#fail(name, `${key}[${index}]`, 'must be a string');
      return this.#interpolate(name, `${key}[${index}]`, item);
    });
  }

  #record(name: string, key: string, value: unknown): Record<string, string> {
    if (!isRecord(value)) this.#fail(name, key, 'must be an object of strings');
    const out: Record<string, string> = {};
    for (const [field, item] of Object.entries(value)) {
      if (typeof item !== 'string') this.#fail(name, `${key}.${field}`, 'must be a string');
      out[field] = this.#interpolate(name, `${key}.${field}`, item);
    }
    return out;
  }

  /** `./x` and `../x` mean next to the config file, wherever the CLI runs; anything else is as written. */
  #relative(value: string): string {
    return /^\.\.?[/\\]/.test(value) ? resolve(this.#baseDir, value) : value;
  }

  /** `${VAR}`, `${env:VAR}`, `${VAR:-default}` and `${input:ID}`; `$${` escapes a literal `${`. */
  #interpolate(name: string, key: string, value: string): string {
    return value.replace(/\$?\$\{([^}]*)\}/g, (match, body: string) => {
      if (match.startsWith('$$')) return match.slice(1);
      if (body.startsWith('input:')) {
        const input = this.#inputs[body.slice(6)];
        if (input === undefined) this.#fail(name, key, `input "${body.slice(6)}" has no value`);
        return input;
      }
      const [rawVar, fallback] = splitDefault(body);
      const variable = rawVar.startsWith('env:') ? rawVar.slice(4) : rawVar;
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
        this.#fail(name, key, `bad variable reference ${match}`);
      const resolved = this.#env[variable];
      if (resolved !== undefined && resolved !== '') return resolved;
      if (fallback !== undefined) return fallback;
      this.#fail(name, key, `environment variable ${variable} is not set`);
    });
  }

  #fail(server: string, key: string | undefined, reason: string): never {
    throw new ConfigError(this.#source, server, key, reason);
  }
}

function splitDefault(body: string): [string, string | undefined] {
  const at = body.indexOf(':-');
  return at < 0 ? [body, undefined] : [body.slice(0, at), body.slice(at + 2)];
}
