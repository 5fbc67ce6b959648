/**
 * 2025-11-25 basic/authorization: Authorization Server Discovery. Protected-resource metadata (RFC 9728) names
 * the authorization servers; their metadata (RFC 8414 / OpenID Connect Discovery) names the endpoints. The
 * 2025-03-26 revision had no protected-resource metadata: the server's origin is the authorization server, and
 * without metadata its endpoints are the defaults.
 */
import * as oauth from 'oauth4webapi';
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  protectedResourceMetadataUrls,
} from '../shared/well-known.js';
import { AuthorizationError } from './errors.js';
import { isRecord } from '../../util/record.js';

export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers?: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly [field: string]: unknown;
}

export interface Discovery {
  /** RFC 8707 `resource`: the metadata's resource identifier, else the canonical server URL. */
  readonly resource: string;
  readonly resourceMetadata: ProtectedResourceMetadata | undefined;
  readonly authorizationServer: oauth.AuthorizationServer;
  /** The authorization server published no metadata: 2025-03-26 default endpoints, nothing advertised. */
  readonly defaultEndpoints: boolean;
}

type Fetch = typeof fetch;

async function getJson(fetchFn: Fetch, url: URL): Promise<Response> {
  return fetchFn(url, { headers: { accept: 'application/json' } });
}

function isPathPrefix(prefix: string, path: string): boolean {
  const trimmed = prefix.replace(/\/$/, '');
  return trimmed === '' || path === trimmed || path.startsWith(`${trimmed}/`);
}

/**
 * RFC 9728 §3.3 and 2025-11-25 basic/authorization: the `resource` must be the server we called (the same
 * origin, and a path that covers ours); otherwise a server could have us fetch tokens for another resource.
 */
function validateResourceMetadata(serverUrl: URL, value: unknown): ProtectedResourceMetadata {
  if (!isRecord(value))
    throw new AuthorizationError('metadata_invalid', 'protected-resource metadata is not a JSON object');
  const metadata = value;
  let resource: URL;
  try {
    resource = new URL(String(metadata.resource));
  } catch {
    throw new AuthorizationError('metadata_invalid', 'protected-resource metadata has no valid `resource`');
  }
  if (resource.origin !== serverUrl.origin || !isPathPrefix(resource.pathname, serverUrl.pathname))
    throw new AuthorizationError(
      'resource_mismatch',
      `protected-resource metadata names ${resource.origin}${resource.pathname}, not ${serverUrl.origin}${serverUrl.pathname}`,
    );
  const servers = metadata.authorization_servers;
  if (
    servers !== undefined &&
    (!Array.isArray(servers) || servers.some((entry) => typeof entry !== 'string'))
  )
    throw new AuthorizationError('metadata_invalid', '`authorization_servers` is not a list of URLs');
  const scopes = metadata.scopes_supported;
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((entry) => typeof entry !== 'string')))
    throw new AuthorizationError('metadata_invalid', '`scopes_supported` is not a list of strings');
  return metadata as ProtectedResourceMetadata;
}

/**
 * The server's protected-resource metadata: the challenge's `resource_metadata` URL first, then the well-known
 * locations (path-inserted, then root). Undefined when the server publishes none (2025-03-26).
 */
export async function discoverResourceMetadata(
  fetchFn: Fetch,
  serverUrl: URL,
  challengeUrl: string | undefined,
): Promise<ProtectedResourceMetadata | undefined> {
  const candidates = protectedResourceMetadataUrls(serverUrl);
  if (challengeUrl) {
    let url: URL;
    try {
      url = new URL(challengeUrl);
    } catch {
      throw new AuthorizationError('metadata_invalid', 'the challenge `resource_metadata` is not a URL');
    }
    candidates.unshift(url);
  }
  for (const url of candidates) {
    const response = await getJson(fetchFn, url);
    if (response.status !== 200) continue;
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new AuthorizationError(
        'metadata_invalid',
        `protected-resource metadata at ${url.href} is not JSON`,
      );
    }
    return validateResourceMetadata(serverUrl, body);
  }
  return undefined;
}

/**
 * An authorization server's metadata from the locations for its issuer, in order; oauth4webapi checks the
 * document, including that its `issuer` is the one we asked for (RFC 8414 §3.3). Undefined when none exists.
 */
export async function discoverAuthorizationServer(
  fetchFn: Fetch,
  issuer: string,
): Promise<oauth.AuthorizationServer | undefined> {
  let expected: URL;
  try {
    expected = new URL(issuer);
  } catch {
    throw new AuthorizationError('metadata_invalid', 'the authorization server is not a URL');
  }
  for (const url of authorizationServerMetadataUrls(expected)) {
    const response = await getJson(fetchFn, url);
    if (response.status !== 200) continue;
    try {
      return await oauth.processDiscoveryResponse(expected, response);
    } catch (error) {
      throw new AuthorizationError(
        'metadata_invalid',
        `authorization server metadata at ${url.href}: ${describe(error)}`,
        {
          cause: error,
        },
      );
    }
  }
  return undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** 2025-03-26 basic/authorization: Fallbacks for Servers without Metadata Discovery. */
function defaultEndpoints(origin: string): oauth.AuthorizationServer {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    code_challenge_methods_supported: ['S256'],
  };
}

/** The whole discovery for one MCP server URL, re-run on every challenge (a server may change its AS). */
export async function discover(
  fetchFn: Fetch,
  serverUrl: URL,
  challengeUrl: string | undefined,
): Promise<Discovery> {
  const resourceMetadata = await discoverResourceMetadata(fetchFn, serverUrl, challengeUrl);
  if (resourceMetadata) {
    const issuer = resourceMetadata.authorization_servers?.[0];
    if (!issuer)
      throw new AuthorizationError(
        'metadata_invalid',
        'protected-resource metadata names no authorization server',
      );
    const authorizationServer = await discoverAuthorizationServer(fetchFn, issuer);
    if (!authorizationServer)
      throw new AuthorizationError('metadata_invalid', `no authorization server metadata for ${issuer}`);
    return {
      resource: canonicalResource(resourceMetadata.resource),
      resourceMetadata,
      authorizationServer,
      defaultEndpoints: false,
    };
  }
  // 2025-03-26: the MCP server's origin is the authorization server.
  const origin = serverUrl.origin;
  const advertised = await discoverAuthorizationServer(fetchFn, origin);
  return {
    resource: canonicalResource(serverUrl),
    resourceMetadata: undefined,
    authorizationServer: advertised ?? defaultEndpoints(origin),
    defaultEndpoints: advertised === undefined,
  };
}
