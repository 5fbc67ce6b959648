/**
 * The `gateway` section of mcp.json: where to listen, how downstream callers authenticate, and the policies
 * (tool authorization, rate limits, per-principal servers, required servers, audit file). Read with the same
 * care as the rest of the file: every error names the key.
 */
import { ConfigError, type HostConfig } from '../agent/config.js';
import { isRecord } from '../util/record.js';
import type { PolicyRule, RateLimit, RateLimits } from './governance.js';

export interface GatewayAuthSettings {
  /** The authorization server's issuer (tokens' `iss`, compared exactly). */
  readonly issuer: string;
  /** Its JWKS URL. */
  readonly jwksUrl: string;
  /** Accepted `aud`; default the gateway's own resource URL. */
  readonly audience?: readonly string[];
  /** The gateway's canonical resource URL (RFC 8707); default its listening URL. */
  readonly resource?: string;
  readonly requiredScopes?: readonly string[];
}

export interface GatewaySettings {
  readonly listen?: { readonly host?: string; readonly port?: number };
  readonly auth?: GatewayAuthSettings;
  readonly policies?: readonly PolicyRule[];
  readonly rateLimits?: RateLimits;
  /** Servers each caller reaches with their own upstream credentials (one connection per principal). */
  readonly perPrincipal?: readonly string[];
  /** Servers /readyz waits for; default every enabled server. */
  readonly required?: readonly string[];
  /** Namespace names with the server's (default true); false serves a single upstream with its exact names. */
  readonly prefix?: boolean;
  /** Offer `search_tools` over the gateway's tools. */
  readonly toolSearch?: boolean;
  /** A JSONL audit file, one line per forwarded request. */
  readonly audit?: string;
}

const KEYS = new Set([
  'listen',
  'auth',
  'policies',
  'rateLimits',
  'perPrincipal',
  'required',
  'prefix',
  'toolSearch',
  'audit',
]);

/** Reads `json.gateway` (absent: no settings), checking the servers it names against `config`. */
export function parseGatewaySettings(json: unknown, config: HostConfig): GatewaySettings {
  if (!isRecord(json) || json.gateway === undefined) return {};
  const raw = json.gateway;
  const fail = (key: string, reason: string): never => {
    throw new ConfigError(config.source, undefined, `gateway.${key}`, reason);
  };
  if (!isRecord(raw)) fail('', 'must be an object');
  const section = raw as Record<string, unknown>;
  for (const key of Object.keys(section)) if (!KEYS.has(key)) fail(key, 'unknown key');
  const servers = new Set(config.servers.map((s) => s.name));
  const serverList = (key: string) => {
    const list = strings(section[key], key, fail);
    for (const name of list ?? []) if (!servers.has(name)) fail(key, `no server named "${name}"`);
    return list;
  };
  const settings: Record<string, unknown> = {
    listen: section.listen === undefined ? undefined : listen(section.listen, fail),
    auth: section.auth === undefined ? undefined : auth(section.auth, fail),
    policies: section.policies === undefined ? undefined : policies(section.policies, fail),
    rateLimits: section.rateLimits === undefined ? undefined : rateLimits(section.rateLimits, fail),
    perPrincipal: serverList('perPrincipal'),
    required: serverList('required'),
    prefix: boolean(section.prefix, 'prefix', fail),
    toolSearch: boolean(section.toolSearch, 'toolSearch', fail),
    audit: string(section.audit, 'audit', fail),
  };
  return Object.fromEntries(
    Object.entries(settings).filter(([, value]) => value !== undefined),
  ) as GatewaySettings;
}

type Fail = (key: string, reason: string) => never;

function listen(raw: unknown, fail: Fail): GatewaySettings['listen'] {
  if (!isRecord(raw)) return fail('listen', 'must be { "host": string, "port": number }');
  const port = raw.port;
  if (port !== undefined && (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535))
    fail('listen.port', 'must be a port number');
  const host = string(raw.host, 'listen.host', fail);
  return { ...(host === undefined ? {} : { host }), ...(port === undefined ? {} : { port: port as number }) };
}

function auth(raw: unknown, fail: Fail): GatewayAuthSettings {
  if (!isRecord(raw)) return fail('auth', 'must be an object');
  const issuer = string(raw.issuer, 'auth.issuer', fail) ?? fail('auth.issuer', 'is required');
  const jwksUrl = string(raw.jwksUrl, 'auth.jwksUrl', fail) ?? fail('auth.jwksUrl', 'is required');
  const audience =
    typeof raw.audience === 'string' ? [raw.audience] : strings(raw.audience, 'auth.audience', fail);
  const resource = string(raw.resource, 'auth.resource', fail);
  const requiredScopes = strings(raw.requiredScopes, 'auth.requiredScopes', fail);
  return {
    issuer,
    jwksUrl,
    ...(audience ? { audience } : {}),
    ...(resource ? { resource } : {}),
    ...(requiredScopes ? { requiredScopes } : {}),
  };
}

function policies(raw: unknown, fail: Fail): PolicyRule[] {
  if (!Array.isArray(raw)) return fail('policies', 'must be an array of { "principals", "tools" }');
  return raw.map((rule, index) => {
    const key = `policies[${index}]`;
    if (!isRecord(rule)) return fail(key, 'must be an object');
    const principals = strings(rule.principals, `${key}.principals`, fail) ?? fail(key, 'needs "principals"');
    const tools = rule.tools;
    if (tools !== undefined && !isRecord(tools)) fail(`${key}.tools`, 'must be { "allow", "deny" }');
    const allow = strings((tools as Record<string, unknown> | undefined)?.allow, `${key}.tools.allow`, fail);
    const deny = strings((tools as Record<string, unknown> | undefined)?.deny, `${key}.tools.deny`, fail);
    return { principals, tools: { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) } };
  });
}

function rateLimits(raw: unknown, fail: Fail): RateLimits {
  if (!isRecord(raw)) return fail('rateLimits', 'must be { "principal", "tools" }');
  const principal =
    raw.principal === undefined ? undefined : limit(raw.principal, 'rateLimits.principal', fail);
  let tools: Record<string, RateLimit> | undefined;
  if (raw.tools !== undefined) {
    if (!isRecord(raw.tools)) fail('rateLimits.tools', 'must map tool globs to limits');
    tools = Object.fromEntries(
      Object.entries(raw.tools as Record<string, unknown>).map(([glob, value]) => [
        glob,
        limit(value, `rateLimits.tools.${glob}`, fail),
      ]),
    );
  }
  return { ...(principal ? { principal } : {}), ...(tools ? { tools } : {}) };
}

function limit(raw: unknown, key: string, fail: Fail): RateLimit {
  if (!isRecord(raw)) return fail(key, 'must be { "capacity": number, "refillPerSecond": number }');
  const { capacity, refillPerSecond } = raw;
  if (typeof capacity !== 'number' || !(capacity >= 1)) fail(`${key}.capacity`, 'must be a number >= 1');
  if (typeof refillPerSecond !== 'number' || !(refillPerSecond > 0))
    fail(`${key}.refillPerSecond`, 'must be a positive number');
  return { capacity: capacity as number, refillPerSecond: refillPerSecond as number };
}

function strings(raw: unknown, key: string, fail: Fail): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.some((item) => typeof item !== 'string'))
    return fail(key, 'must be an array of strings');
  return raw as string[];
}

function string(raw: unknown, key: string, fail: Fail): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '') return fail(key, 'must be a non-empty string');
  return raw;
}

function boolean(raw: unknown, key: string, fail: Fail): boolean | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'boolean') return fail(key, 'must be a boolean');
  return raw;
}
