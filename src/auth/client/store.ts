/**
 * Where tokens live between runs: a pluggable store keyed by (issuer, resource), so a token is only ever
 * presented to the resource it was issued for, from the authorization server that issued it. The default is a
 * file under the user's config directory, readable by the user alone (mode 0600).
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isRecord } from '../../util/record.js';

export interface TokenKey {
  readonly issuer: string;
  readonly resource: string;
}

export interface StoredTokens {
  readonly access_token: string;
  /** `bearer` or `dpop` (RFC 9449 §5: a DPoP-bound token is useless without its key, which is never stored). */
  readonly token_type: string;
  readonly refresh_token?: string;
  /** Epoch milliseconds. */
  readonly expires_at?: number;
  /** The scopes granted (or requested, when the response named none). */
  readonly scope?: readonly string[];
  /** The client the tokens were issued to (refresh must use the same one). */
  readonly client_id: string;
  readonly saved_at: number;
}

/** Client credentials obtained by registration, per issuer (never used with another authorization server). */
export interface StoredClient {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly token_endpoint_auth_method?: string;
  readonly redirect_uri?: string;
}

export interface TokenStore {
  get(key: TokenKey): Promise<StoredTokens | undefined>;
  set(key: TokenKey, tokens: StoredTokens): Promise<void>;
  delete(key: TokenKey): Promise<void>;
  /** Every stored token entry (for `auth status` and for finding a resource's tokens before discovery). */
  entries(): Promise<Array<[TokenKey, StoredTokens]>>;
  getClient(issuer: string): Promise<StoredClient | undefined>;
  setClient(issuer: string, client: StoredClient): Promise<void>;
  deleteClient(issuer: string): Promise<void>;
}

const keyOf = (key: TokenKey): string => `${key.issuer} ${key.resource}`;

interface StoreData {
  tokens: Record<string, { key: TokenKey; tokens: StoredTokens }>;
  clients: Record<string, StoredClient>;
}

const emptyData = (): StoreData => ({ tokens: {}, clients: {} });

/** Tokens for this process only. */
export class MemoryTokenStore implements TokenStore {
  protected data: StoreData = emptyData();
  /** Read-modify-write operations one at a time, so concurrent writers never lose each other's entries. */
  #queue: Promise<void> = Promise.resolve();

  protected async load(): Promise<StoreData> {
    return this.data;
  }

  protected async save(_data: StoreData): Promise<void> {}

  protected update(change: (data: StoreData) => void): Promise<void> {
    const run = async () => {
      const data = await this.load();
      change(data);
      await this.save(data);
    };
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => {});
    return next;
  }

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    return (await this.load()).tokens[keyOf(key)]?.tokens;
  }

  set(key: TokenKey, tokens: StoredTokens): Promise<void> {
    return this.update((data) => {
      data.tokens[keyOf(key)] = { key: { issuer: key.issuer, resource: key.resource }, tokens };
    });
  }

  delete(key: TokenKey): Promise<void> {
    return this.update((data) => {
      delete data.tokens[keyOf(key)];
    });
  }

  async entries(): Promise<Array<[TokenKey, StoredTokens]>> {
    return Object.values((await this.load()).tokens).map((entry) => [entry.key, entry.tokens]);
  }

  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return (await this.load()).clients[issuer];
  }

  setClient(issuer: string, client: StoredClient): Promise<void> {
    return this.update((data) => {
      data.clients[issuer] = client;
    });
  }

  deleteClient(issuer: string): Promise<void> {
    return this.update((data) => {
      delete data.clients[issuer];
    });
  }
}

/** `$XDG_CONFIG_HOME/agentforge/tokens.json`, else `~/.config/agentforge/tokens.json`. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'agentforge', 'tokens.json');
}

const MAX_STORE_BYTES = 4 * 1024 * 1024;

function parseStore(text: string): StoreData {
  const value = JSON.parse(text) as Partial<StoreData>;
  const data = emptyData();
  if (isRecord(value) && isRecord(value.tokens)) data.tokens = value.tokens;
  if (isRecord(value) && isRecord(value.clients)) data.clients = value.clients;
  return data;
}

/**
 * A JSON file readable and writable by the user only: the directory is created 0700, the file written to a
 * temporary name with mode 0600 and renamed over the old one, so no reader ever sees a partial file.
 */
export class FileTokenStore extends MemoryTokenStore {
  readonly path: string;

  constructor(path: string = defaultTokenFile()) {
    super();
    this.path = path;
  }

  protected override async load(): Promise<StoreData> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyData();
      throw error;
    }
    if (text.length > MAX_STORE_BYTES)
      throw new Error(`${this.path} is larger than ${MAX_STORE_BYTES} bytes`);
    try {
      return parseStore(text);
    } catch {
      throw new Error(`${this.path} is not a valid token store (remove it to start over)`);
    }
  }

  protected override async save(data: StoreData): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, this.path);
  }
}
