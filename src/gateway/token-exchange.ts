/**
 * Upstream credentials by RFC 8693 OAuth 2.0 Token Exchange, for the servers of mcp.json with `tokenExchange`:
 * the caller's verified access token (the subject token) goes to the configured token endpoint, with the
 * gateway's client authentication, and the token issued for the upstream (`resource`/`audience`) goes upstream
 * as `Authorization: Bearer`. One token per (server, principal), kept until shortly before it expires; a refused
 * exchange refuses that caller, with no fallback to a shared connection or anyone else's token. No token is
 * ever logged or put in an error message. The token endpoint's response is size-capped like any OAuth response.
 */
import * as oauth from 'oauth4webapi';
import type { ServerConfig, ServerTokenExchangeConfig } from '../agent/config.js';
import { cappedFetch } from '../auth/client/network.js';
import type { UpstreamCaller, UpstreamCredentials, UpstreamCredentialsHook } from './upstreams.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** Without `expires_in`, an issued token is used this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
/** Tokens are renewed this long before they expire (at most a tenth of their lifetime). */
const RENEW_EARLY_MS = 30_000;
const MAX_CACHED = 10_000;
const EXCHANGE_TIMEOUT_MS = 10_000;

interface Issued {
  readonly token: string;
  /** Epoch ms after which the token is renewed. */
  readonly renewAt: number;
}

export class TokenExchanger {
  readonly #issued = new Map<string, Issued>();
  readonly #pending = new Map<string, Promise<Issued>>();

  /** `Authorization` for `principal` on `server`: the cached token, or a new exchange of the caller's token. */
  async credentials(server: ServerConfig, principal: string, caller: UpstreamCaller | undefined) {
    const settings = server.tokenExchange!;
    const key = `${server.name}\u0000${principal}`;
    const cached = this.#issued.get(key);
    if (cached && Date.now() < cached.renewAt) return headersOf(cached);
    const subjectToken = caller?.subjectToken;
    if (subjectToken === undefined)
      throw new Error(
        "token exchange needs the caller's access token: the gateway's auth guard must keep it (bearerAuth exposeToken)",
      );
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#exchange(settings, server, subjectToken);
      this.#pending.set(key, pending);
    }
    try {
      const issued = await pending;
      this.#issued.delete(key);
      if (this.#issued.size >= MAX_CACHED) this.#issued.delete(this.#issued.keys().next().value!);
      this.#issued.set(key, issued);
      return headersOf(issued);
    } finally {
      if (this.#pending.get(key) === pending) this.#pending.delete(key);
    }
  }

  async #exchange(settings: ServerTokenExchangeConfig, server: ServerConfig, subjectToken: string) {
    const endpoint = new URL(settings.tokenEndpoint);
    const as: oauth.AuthorizationServer = { issuer: endpoint.origin, token_endpoint: endpoint.href };
    const client: oauth.Client = { client_id: settings.clientId };
    const clientAuth = settings.clientSecret ? oauth.ClientSecretBasic(settings.clientSecret) : oauth.None();
    const url = server.target.kind === 'http' ? server.target.url : undefined;
    const parameters: Record<string, string> = {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      // RFC 8693 §2.1: the upstream as `resource` (its URL) unless an `audience` names it.
      ...(settings.audience ? { audience: settings.audience } : {}),
      ...(settings.resource || (!settings.audience && url) ? { resource: settings.resource ?? url! } : {}),
      ...(settings.scope ? { scope: settings.scope } : {}),
    };
    let response: oauth.TokenEndpointResponse;
    try {
      const sent = await oauth.genericTokenEndpointRequest(
        as,
        client,
        clientAuth,
        TOKEN_EXCHANGE_GRANT,
        parameters,
        {
          // Config validation allows http only on loopback.
          [oauth.allowInsecureRequests]: true,
          // The endpoint's answer is read against a cap before it is parsed, and redirects are not followed.
          [oauth.customFetch]: cappedFetch(),
          signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
        },
      );
      response = await oauth.processGenericTokenEndpointResponse(as, client, sent);
    } catch (error) {
      throw exchangeError(endpoint.href, error);
    }
    const lifetime = response.expires_in === undefined ? DEFAULT_LIFETIME_MS : response.expires_in * 1000;
    return {
      token: response.access_token,
      renewAt: Date.now() + lifetime - Math.min(RENEW_EARLY_MS, lifetime / 10),
    };
  }
}

function headersOf(issued: Issued): UpstreamCredentials {
  return { headers: { authorization: `Bearer ${issued.token}` }, expiresAt: issued.renewAt };
}

/** The token endpoint's `error` and description, never the request (it holds the caller's token). */
function exchangeError(endpoint: string, error: unknown): Error {
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ? `: ${error.error_description.slice(0, 200)}` : '';
    return new Error(`token exchange refused by ${endpoint} (${error.error}${description})`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`token exchange at ${endpoint} failed: ${message.slice(0, 200)}`);
}

/**
 * The servers whose connections are each principal's own: those `perPrincipal` lists (credentials from code)
 * and every enabled server with `tokenExchange`. Asked again on each reload.
 */
export function perPrincipalServers(
  servers: readonly ServerConfig[],
  perPrincipal: readonly string[] | undefined,
): string[] {
  const exchanged = servers.filter((s) => s.tokenExchange && s.enabled).map((s) => s.name);
  return [...new Set([...(perPrincipal ?? []), ...exchanged])];
}

/**
 * The gateway's credentials hook: a server with `tokenExchange` in the config as it is now gets exchanged
 * tokens; any other gets what `hook` gives.
 */
export function exchangeCredentials(
  servers: () => readonly ServerConfig[],
  hook: UpstreamCredentialsHook | undefined,
  exchanger = new TokenExchanger(),
): UpstreamCredentialsHook {
  return (principal, server, caller) => {
    const config = servers().find((s) => s.name === server);
    if (config?.tokenExchange) return exchanger.credentials(config, principal, caller);
    return hook?.(principal, server, caller);
  };
}
