/**
 * 2025-11-25 basic/authorization: Client Registration Approaches, in the spec's order: pre-registered
 * credentials, a Client ID Metadata Document (the client_id is an https URL the server fetches), then Dynamic
 * Client Registration (RFC 7591) as the fallback. Credentials belong to one issuer and are never presented to
 * another authorization server (SEP-2352).
 */
import { importPKCS8 } from 'jose';
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import type { StoredClient, TokenStore } from './store.js';
import { isRecord } from '../../util/record.js';

export type TokenEndpointAuthMethod =
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'private_key_jwt'
  | 'none';

export interface ClientIdentity {
  /** Pre-registered client id (and secret or key). */
  clientId?: string;
  clientSecret?: string;
  /** PKCS#8 PEM for `private_key_jwt` (RFC 7523 §2.2). */
  privateKey?: string;
  /** JWS algorithm of `privateKey` (default ES256). */
  signingAlgorithm?: string;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** The issuer the pre-registered credentials belong to; without it they are offered to any issuer. */
  issuer?: string;
  /** An https URL serving this client's metadata document, used as client_id where the server supports it. */
  clientMetadataUrl?: string;
  /** `client_name` for Dynamic Client Registration. */
  clientName?: string;
}

export interface ResolvedClient {
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly source: 'pre-registered' | 'metadata-document' | 'registered';
}

function chooseMethod(
  as: oauth.AuthorizationServer,
  identity: { secret?: string; key?: string },
): TokenEndpointAuthMethod {
  const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (identity.key) return 'private_key_jwt';
  if (!identity.secret) return 'none';
  if (!supported.includes('client_secret_basic') && supported.includes('client_secret_post'))
    return 'client_secret_post';
  return 'client_secret_basic';
}

/**
 * RFC 6749 §2.3.1 client_secret_basic, with the id and secret encoded by the application/x-www-form-urlencoded
 * serializer (unreserved characters such as `-` stay as they are). oauth4webapi also escapes those, which
 * servers that skip the decoding step reject.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
    headers.set('authorization', `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`);
  };
}

async function clientAuthFor(
  method: TokenEndpointAuthMethod,
  secret: string | undefined,
  key: { pem: string; algorithm: string } | undefined,
): Promise<oauth.ClientAuth> {
  switch (method) {
    case 'private_key_jwt':
      if (!key)
        throw new AuthorizationError('registration_unavailable', 'private_key_jwt needs a private key');
      return oauth.PrivateKeyJwt(await importPKCS8(key.pem, key.algorithm));
    case 'client_secret_basic':
    case 'client_secret_post':
      if (!secret)
        throw new AuthorizationError('registration_unavailable', `${method} needs a client secret`);
      return method === 'client_secret_basic' ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret);
    case 'none':
      return oauth.None();
  }
}

function asMethod(value: unknown): TokenEndpointAuthMethod | undefined {
  return value === 'client_secret_basic' ||
    value === 'client_secret_post' ||
    value === 'private_key_jwt' ||
    value === 'none'
    ? value
    : undefined;
}

async function fromStored(as: oauth.AuthorizationServer, stored: StoredClient): Promise<ResolvedClient> {
  const method =
    asMethod(stored.token_endpoint_auth_method) ??
    chooseMethod(as, { ...(stored.client_secret ? { secret: stored.client_secret } : {}) });
  return {
    client: { client_id: stored.client_id },
    clientAuth: await clientAuthFor(method, stored.client_secret, undefined),
    source: 'registered',
  };
}

export interface RegistrationContext {
  readonly as: oauth.AuthorizationServer;
  readonly identity: ClientIdentity;
  readonly store: TokenStore;
  readonly fetch: typeof fetch;
  /** Absent for grants without a redirect (client credentials, JWT bearer). */
  readonly redirectUri: string | undefined;
  readonly grantTypes: readonly string[];
}

/** The client to use with this authorization server, registering it when nothing else applies. */
export async function resolveClient(context: RegistrationContext): Promise<ResolvedClient> {
  const { as, identity } = context;
  if (identity.clientId && (identity.issuer === undefined || identity.issuer === as.issuer)) {
    const key = identity.privateKey
      ? { pem: identity.privateKey, algorithm: identity.signingAlgorithm ?? 'ES256' }
      : undefined;
    const method =
      identity.tokenEndpointAuthMethod ??
      chooseMethod(as, {
        ...(identity.clientSecret ? { secret: identity.clientSecret } : {}),
        ...(key ? { key: key.pem } : {}),
      });
    return {
      client: { client_id: identity.clientId },
      clientAuth: await clientAuthFor(method, identity.clientSecret, key),
      source: 'pre-registered',
    };
  }
  const stored = await context.store.getClient(as.issuer);
  if (stored && (context.redirectUri === undefined || stored.redirect_uri === context.redirectUri))
    return fromStored(as, stored);
  if (identity.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
    return {
      client: { client_id: identity.clientMetadataUrl },
      clientAuth: oauth.None(),
      source: 'metadata-document',
    };
  }
  if (as.registration_endpoint) return register(context);
  throw new AuthorizationError(
    'registration_unavailable',
    `no client credentials for ${as.issuer}: it supports neither client metadata documents nor registration; configure a clientId`,
  );
}

/**
 * RFC 7591 §3.2.1. Read leniently where servers commonly deviate (a secret without `client_secret_expires_at`,
 * a 200 instead of 201); what we use, `client_id` and `client_secret`, must be strings.
 */
async function readRegistration(response: Response): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new Error(`HTTP ${response.status} without a JSON body`);
  }
  const fields = isRecord(body) ? body : {};
  if (response.status !== 201 && response.status !== 200) {
    const error = typeof fields.error === 'string' ? fields.error : `HTTP ${response.status}`;
    throw new Error(error);
  }
  if (typeof fields.client_id !== 'string' || fields.client_id === '')
    throw new Error('no client_id in the response');
  if (fields.client_secret !== undefined && typeof fields.client_secret !== 'string')
    throw new Error('client_secret is not a string');
  return fields;
}

/** RFC 7591 through oauth4webapi; the registered client is stored under the issuer. */
async function register(context: RegistrationContext): Promise<ResolvedClient> {
  const { as } = context;
  const supported = as.token_endpoint_auth_methods_supported ?? [];
  const requestedMethod =
    supported.length === 0 || supported.includes('none')
      ? 'none'
      : supported.includes('client_secret_basic')
        ? 'client_secret_basic'
        : 'client_secret_post';
  const metadata: Partial<oauth.Client> = {
    client_name: context.identity.clientName ?? 'agentforge',
    grant_types: [...context.grantTypes],
    response_types: context.redirectUri ? ['code'] : [],
    token_endpoint_auth_method: requestedMethod,
    // SEP-837: a CLI or desktop host is a native application.
    application_type: 'native',
    ...(context.redirectUri ? { redirect_uris: [context.redirectUri] } : {}),
  };
  let registered: Record<string, unknown>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(as, metadata, {
      [oauth.customFetch]: context.fetch,
      [oauth.allowInsecureRequests]: true,
    });
    registered = await readRegistration(response);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AuthorizationError(
      'registration_unavailable',
      `dynamic client registration failed: ${message}`,
      { cause: error },
    );
  }
  const secret = typeof registered.client_secret === 'string' ? registered.client_secret : undefined;
  if (typeof registered.client_id !== 'string' || registered.client_id === '')
    throw new AuthorizationError('registration_unavailable', 'the registration response has no client_id');
  const stored: StoredClient = {
    client_id: registered.client_id,
    ...(secret ? { client_secret: secret } : {}),
    ...(asMethod(registered.token_endpoint_auth_method)
      ? { token_endpoint_auth_method: registered.token_endpoint_auth_method as string }
      : {}),
    ...(context.redirectUri ? { redirect_uri: context.redirectUri } : {}),
  };
  await context.store.setClient(as.issuer, stored);
  return fromStored(as, stored);
}
